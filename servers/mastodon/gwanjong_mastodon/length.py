"""A status's length as Mastodon counts it (StatusLengthValidator): graphemes, where each URL
it links counts ``characters_reserved_per_url`` (23) whatever its length, and a mention counts
as ``@`` and the account's username (a remote one without its ``@domain``).

A URL is one Mastodon's extractor finds (twitter-text's, under Mastodon's own patterns), and
only with its scheme (``https``, ``http``, ``dat``, ``dweb``, ``ipfs``, ``ipns``, ``ssb``,
``gopher``, ``gemini``): after no letter, digit, ``@``, ``$`` or ``#``; on a domain whose last
label is a top-level domain twitter-text knows (``localhost`` and IP addresses are text,
counted as written); then a port, a path and a query, the path ending on no punctuation but
``/``, ``-``, ``_``, ``+``, ``#`` and the like (a sentence's full stop is not the URL's) or a
balanced parenthesis. A mention is Account::MENTION_RE: ``@user`` or ``@user@domain``, after
no ``=``, ``/`` or word character, the username letters, digits and ``_`` joined by ``.`` or
``-`` (``@first.last``), and not followed by ``@``, an accented letter or ``://``. Where a URL
and a mention overlap, the one that starts first counts. A URL inside a link without a scheme
(which Mastodon never counts as a URL) counts as the more of its length and the URL's weight.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from gwanjong_shared.contract import Unit
from gwanjong_shared.contract.text import measure
from gwanjong_shared.kit.tlds import CCTLDS, DIRECTIONAL, GTLDS, INVALID, LATIN, SPACES

_SCHEMES = "https?|dat|dweb|ipfs|ipns|ssb|gopher|gemini"
# twitter-text's (Ruby's, as Mastodon runs it) character classes: a domain label has none
_PUNCT = re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~") + r"\x00-\x1F\x7F"
_DC = f"[^{_PUNCT}{SPACES}{INVALID}{DIRECTIONAL}]"
_TLD = "|".join(sorted(GTLDS | CCTLDS, key=len, reverse=True))
_DOMAIN = (
    f"(?:(?:{_DC}(?:[_-]|{_DC})*)?{_DC}\\.)*(?:(?:{_DC}(?:-|{_DC})*)?{_DC}\\.)"
    f"(?:(?:{_TLD})(?=[^0-9a-z@+-]|$)|xn--[0-9a-z-]+)"
)
# Mastodon's path: any character but space, <, >, ( ) and ?, ending on one that is no
# punctuation of a sentence, or a balanced parenthesis (one level nested)
_G = r"[^\s<>()?]"
_PARENS = f"\\((?:{_G}+|{_G}*\\({_G}+\\){_G}*)\\)"
_PATH_END = f"(?:[^\\s()?!*\"'「」<>;:=,.$%\\[\\]~&|@]|{_PARENS})"
_PATH = f"(?:{_G}*(?:{_PARENS}{_G}*)*{_PATH_END}|{_G}+/)"
_U = (
    "\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef\U00010000-\U0001fffd\U00020000-\U0002fffd"
    "\U00030000-\U0003fffd\U00040000-\U0004fffd\U00050000-\U0005fffd\U00060000-\U0006fffd"
    "\U00070000-\U0007fffd\U00080000-\U0008fffd\U00090000-\U0009fffd\U000a0000-\U000afffd"
    "\U000b0000-\U000bfffd\U000c0000-\U000cfffd\U000d0000-\U000dfffd\U000e1000-\U000efffd"
    "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
)
_QUERY = f"\\?[a-z0-9!?*'();:&=+$/%#\\[\\]\\-_.,~|@^{_U}]*[a-z0-9_&=#/\\-{_U}]"
_SCHEME = re.compile(f"(?<![a-z0-9@＠$#＃{INVALID}])(?:{_SCHEMES})://", re.IGNORECASE)
_URL = re.compile(
    f"(?:{_SCHEMES})://({_DOMAIN})(?::[0-9]+)?(?:/{_PATH}*)?(?:{_QUERY})?", re.IGNORECASE
)
_WORD = re.compile(r"\S+")
_MENTION = re.compile(
    r"(?<![=/\w])@([a-z0-9_]+(?:[.-]+[a-z0-9_]+)*)(?:@\w+(?:[.-]+\w+)*)?", re.IGNORECASE
)
_NOT_A_MENTION = re.compile(f"[@＠{LATIN}]|://")
_MOST_URL = 4096  # twitter-text's longest URL


def _entities(text: str, unit: Unit, url_chars: int) -> Iterator[tuple[int, int, str]]:
    """(start, end, what it counts as) of each URL and mention, by start, no two overlapping."""
    found: list[tuple[int, int, str]] = []
    words = [w.start() for w in _WORD.finditer(text)]
    end = 0
    # Matched only where a scheme starts (the extractor scans every position, which costs
    # a Python regex seconds on a text of many dots).
    for scheme in _SCHEME.finditer(text):
        match = _URL.match(text, scheme.start()) if scheme.start() >= end else None
        if match is None or match.end() - match.start() > _MOST_URL:
            continue
        try:
            match.group(1).encode("idna")  # a label over 63 characters is no domain
        except UnicodeError:
            continue
        start, end, url = match.start(), match.end(), match.group(0)
        # The extractor also takes a link without a scheme, and never counts it: a URL
        # inside one ("web.archive.org/web/1/https://…") is text to Mastodon. Where a
        # domain may stand before it in its word, it counts the more of the two.
        word = words[bisect.bisect_right(words, start) - 1]
        bare = text.rfind(".", word, start) != -1
        weight = max(url_chars, measure(url, unit)) if bare else url_chars
        found.append((start, end, url if weight > url_chars else "x" * url_chars))
    for match in _MENTION.finditer(text):
        if not _NOT_A_MENTION.match(text, match.end()):
            found.append((match.start(), match.end(), "@" + match.group(1)))
    end = 0
    for start, stop, counted in sorted(found, key=lambda e: e[0]):
        if start >= end:
            end = stop
            yield start, stop, counted


def status_length(text: str, unit: Unit, url_chars: int) -> int:
    """``text`` measured as Mastodon counts it (``url_chars``: the instance's
    ``characters_reserved_per_url``)."""
    parts: list[str] = []
    at = 0
    for start, end, counted in _entities(text, unit, url_chars):
        parts += [text[at:start], counted]
        at = end
    return measure("".join([*parts, text[at:]]), unit)
