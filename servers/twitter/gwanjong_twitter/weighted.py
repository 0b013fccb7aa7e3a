"""X's weighted character count (twitter-text v3), the unit of the 280 limit.

``twitter-text-parser`` 3.0.0, the last release of the Python port, cannot be imported on
current setups: its emoji module calls ``pkg_resources`` (setuptools). This module implements
the same documented rules (``fundamentals/counting-characters``, twitter-text v3 config) and is
tested against the conformance cases twitter-text publishes:

- the text is NFC-normalised and line endings become ``\\n``;
- every URL counts 23 (a URL needs a known TLD, labels of at most 63 characters once
  punycoded, and without ``https://`` an ASCII domain);
- an emoji, including ZWJ sequences, skin tones, flags and keycaps, counts 2 (text-style
  ``©``/``®`` without VS16 are text, as in twemoji);
- any other code point counts 1 in U+0000-U+10FF, U+2000-U+200D, U+2010-U+201F and
  U+2032-U+2037, and 2 everywhere else (CJK, Hangul, most scripts).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import regex

from gwanjong_shared.kit.tlds import CCTLDS, DIRECTIONAL, GTLDS, INVALID, LATIN, SPACES

MAX_WEIGHTED = 280
URL_WEIGHT = 23
_LIGHT = ((0, 4351), (8192, 8205), (8208, 8223), (8242, 8247))

_PUNCT = r"\!'#%&'\(\)*\+,\\\-\.\/:;<=>\?@\[\]\^_{|}~\$/"
_CYRILLIC = r"\u0400-\u04FF"

_DC = f"[^{_PUNCT}{SPACES}{INVALID}{DIRECTIONAL}]"  # a character allowed in a domain label
_TLD_WORDS = "|".join(sorted(GTLDS | CCTLDS, key=len, reverse=True))
_TLD = f"(?:(?:{_TLD_WORDS})(?=[^0-9a-zA-Z@+-]|$)|xn--[\\-0-9a-z]+)"
_DOMAIN = f"(?:(?:(?:{_DC}(?:[_-]|{_DC})*)?{_DC}\\.)*(?:(?:{_DC}(?:-|{_DC})*)?{_DC}\\.){_TLD})"
_PATH_CHAR = f"[a-z{_CYRILLIC}0-9!\\*';:=\\+,\\.\\$\\/%#\\[\\]\\-\\u2013_~@\\|&{LATIN}]"
_PARENS = f"\\((?:{_PATH_CHAR}+|(?:{_PATH_CHAR}*\\({_PATH_CHAR}+\\){_PATH_CHAR}*))\\)"
_PATH_END = f"(?:[\\+\\-a-z{_CYRILLIC}0-9=_#\\/{LATIN}]|(?:{_PARENS}))"
_PATH = f"(?:(?:{_PATH_CHAR}*(?:{_PARENS}{_PATH_CHAR}*)*{_PATH_END})|(?:@{_PATH_CHAR}+/))"
_QUERY = r"[a-z0-9!?*'@();:&=+$/%#\[\]\-_.,~|]*[a-z0-9\-_&=#/]"

# The pieces of twitter-text's URL pattern, matched as its backtracking regex would (see
# ``_Chains``): run whole, it retried every shorter label chain at every start, seconds on a
# text of many dots ("a.a.a…"), the server's event loop blocked all the while.
_BEFORE = re.compile(f"[^A-Za-z0-9@＠$#＃{INVALID}]|[{DIRECTIONAL}]", re.IGNORECASE)
_PROTOCOL = re.compile(r"https?:\/\/", re.IGNORECASE)
_LABEL_RUN = re.compile(f"(?:[_-]|{_DC})+", re.IGNORECASE)
_DC_ONE = re.compile(_DC, re.IGNORECASE)
_TAIL = re.compile(f"(?::([0-9]+))?(\\/{_PATH}*)?(\\?{_QUERY})?", re.IGNORECASE)
_ASCII_RUN = re.compile(f"[\\-a-z0-9{LATIN}]+", re.IGNORECASE)
_TLD_AT = re.compile(_TLD, re.IGNORECASE)
_TCO = re.compile(r"^https?:\/\/t\.co\/([a-z0-9]+)(?:\?" + _QUERY + ")?", re.IGNORECASE)
_NO_PROTOCOL_BAD_BEFORE = re.compile(r"[-_./]$")
_INVALID_CHARS = re.compile(f"[{INVALID}]")

_PICT = r"(?:\p{Extended_Pictographic}|\p{Emoji_Presentation})"
_EMOJI = regex.compile(
    r"\p{Regional_Indicator}{2}"  # flags
    r"|[#*0-9]\uFE0F?\u20E3"  # keycaps
    r"|\U0001F3F4[\U000E0020-\U000E007E]+\U000E007F"  # subdivision flags
    rf"|{_PICT}(?:\uFE0F|\p{{Emoji_Modifier}})?(?:\u200D{_PICT}(?:\uFE0F|\p{{Emoji_Modifier}})?)*"
)


@dataclass(frozen=True)
class Parsed:
    weighted_length: int
    valid: bool
    urls: tuple[str, ...]


def _normalize(text: str) -> str:
    return re.sub(r"\r\n|\r|\n", "\n", unicodedata.normalize("NFC", text))


def _char_weight(ch: str) -> int:
    cp = ord(ch)
    return 1 if any(lo <= cp <= hi for lo, hi in _LIGHT) else 2


class _Chains:
    """Where ``(label\\.)+TLD`` ends from each start in ``text``, as a backtracking regex
    finds it: the most labels that a TLD still follows. Each position after a dot is worked
    out once, so a text costs linear time however many dots it holds.

    ``inner(start, end)``: the label may have more labels after it; ``last(start, end)``: it
    may be the one before the TLD. A label runs to the end of its run of ``runs``."""

    def __init__(
        self,
        text: str,
        runs: re.Pattern[str],
        inner: Callable[[int, int], bool],
        last: Callable[[int, int], bool],
    ) -> None:
        self.text, self.inner, self.last = text, inner, last
        self.run_end = list(range(len(text) + 1))
        for run in runs.finditer(text):
            self.run_end[run.start() : run.end()] = [run.end()] * (run.end() - run.start())
        self.memo: dict[int, int | None] = {}

    def end(self, start: int) -> int | None:
        text, chain, pos = self.text, [], start
        after: int | None = None  # where the labels after the chain's last one end
        while pos not in self.memo:
            stop = self.run_end[pos]
            if stop == pos or stop >= len(text) or text[stop] != ".":
                self.memo[pos] = None
                break
            chain.append((pos, stop))
            if not self.inner(pos, stop):
                break
            pos = stop + 1
        else:
            after = self.memo[pos]
        for pos, stop in reversed(chain):
            if after is None or not self.inner(pos, stop):
                after = None
                if self.last(pos, stop):
                    tld = _TLD_AT.match(text, stop + 1)
                    after = tld.end() if tld else None
            self.memo[pos] = after
        return self.memo[start]


def _url_matches(text: str) -> Iterator[tuple[str, str, str | None, str, str | None, int]]:
    """(before, url, protocol, domain, path, end), what twitter-text's URL regex finds."""
    under = list(range(len(text) + 1))  # the next "_" at or after each position
    for i in range(len(text) - 1, -1, -1):
        under[i] = i if text[i] == "_" else under[i + 1]

    def inner(start: int, stop: int) -> bool:
        return bool(_DC_ONE.match(text, start) and _DC_ONE.match(text, stop - 1))

    domains = _Chains(text, _LABEL_RUN, inner, lambda a, b: inner(a, b) and under[a] >= b)
    i = 0
    while i < len(text):
        starts = [(text[i], i + 1)] if _BEFORE.match(text, i) else []
        hit = None
        for before, start in [*starts, *([("", 0)] if i == 0 else [])]:
            protocol = _PROTOCOL.match(text, start)
            at = protocol.end() if protocol else start
            stop = domains.end(at)
            if stop is None and protocol:
                protocol, at, stop = None, start, domains.end(start)
            if stop is not None:
                tail = _TAIL.match(text, stop)
                assert tail is not None  # every part after the domain is optional
                found = text[start : tail.end()], text[at:stop], tail.group(2), tail.end()
                hit = (before, found[0], protocol and protocol.group(0), *found[1:])
                break
        if hit:
            yield hit
            i = hit[-1]
        else:
            i += 1


def _ascii_domains(domain: str) -> Iterator[tuple[int, int]]:
    """Where twitter-text's ASCII domain pattern matches in ``domain``, one after another."""
    chains = _Chains(domain, _ASCII_RUN, lambda a, b: True, lambda a, b: True)
    i = 0
    while i < len(domain):
        stop = chains.end(i)
        if stop is None:
            i += 1
            continue
        yield i, stop
        i = stop


def extract_urls(text: str) -> list[tuple[int, int, str]]:
    """(start, end, url) in code points, the URLs X would shorten to t.co."""
    if "." not in text:
        return []
    found: list[tuple[int, int, str]] = []
    for before, url, protocol, domain, path, end in _url_matches(text):
        start = end - len(url)
        try:
            puny = domain.encode("idna").decode("ascii")
        except UnicodeError:
            continue
        if len(protocol or "https://") + len(url) + len(puny) - len(domain) > 4096:
            continue
        if protocol is None:
            if _NO_PROTOCOL_BAD_BEFORE.search(before):
                continue
            last: tuple[int, int, str] | None = None
            for a, b in _ascii_domains(domain):
                last = (start + a, start + b, domain[a:b])
                found.append(last)
            if last is None:
                continue
            if path:
                found[-1] = (last[0], end, url.replace(domain, last[2]))
            continue
        tco = _TCO.search(url)
        if tco:
            if len(tco.group(1)) > 40:
                continue
            url = tco.group(0)
            end = start + len(url)
        found.append((start, end, url))
    return found


def _is_emoji_at(text: str, index: int) -> int:
    """Length in code points of the emoji starting at ``index``, or 0."""
    match = _EMOJI.match(text, index)
    if not match:
        return 0
    found = match.group(0)
    # Text-style symbols in Latin-1 (©, ®) are emoji only with VS16, as twemoji parses them.
    if len(found) == 1 and ord(found) <= 0xFF:
        return 0
    return len(found)


def parse(text: str) -> Parsed:
    normalized = _normalize(text)
    urls = {start: (end, url) for start, end, url in extract_urls(normalized)}
    total = 0
    i = 0
    while i < len(normalized):
        if i in urls:
            total += URL_WEIGHT
            i = urls[i][0]
            continue
        size = _is_emoji_at(normalized, i)
        if size:
            total += 2
            i += size
            continue
        total += _char_weight(normalized[i])
        i += 1
    valid = 0 < total <= MAX_WEIGHTED and not _INVALID_CHARS.search(normalized)
    return Parsed(total, valid, tuple(u for _e, u in urls.values()))


def weighted_length(text: str) -> int:
    return parse(text).weighted_length


def has_invalid_characters(text: str) -> bool:
    return _INVALID_CHARS.search(text) is not None
