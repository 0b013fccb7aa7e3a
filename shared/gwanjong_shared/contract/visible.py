"""How a person sees text: the one renderer of every surface that shows a person outgoing
or platform text (the approval dialog, the one-approval page, the app card, the console,
`gwanjong review`, `gwanjong history`).

:func:`untrusted.clean` makes text safe for the *model* by removing what hides; a person
who approves must instead see *every* character that will be sent, so here nothing is
removed: each character that cannot be seen is written out as a visible mark (``⟦U+202E⟧``)
and counted, with a warning. Which characters those are comes from Unicode's own data, not
from a hand list: the general categories Cc (controls, C0 and C1: ESC, BEL, CR...), Cf
(format: zero-width, bidi controls, soft hyphen...), Co (private use), Cn (unassigned), Cs
(surrogates), Zl and Zp (line and paragraph separators), the bidi control classes, the
Tags block (U+E0000–U+E007F, ASCII smuggling: a run of them is also decoded, so the hidden
words are read), every Default_Ignorable_Code_Point (variation selectors, Hangul
fillers, combining grapheme joiner...) and the few printable characters fonts draw empty
(:data:`BLANK_GLYPHS`). Newline and tab are shown as themselves.

Emoji are shown as they are drawn: a zero-width joiner between two emoji (👩‍💻) and a
variation selector 15/16 right after an emoji (❤️) build one glyph and are neither marked
nor warned about (they are still characters of the text and count in its length). A
digit, '#' or '*' is an emoji only as a keycap's base: a selector after one is marked
unless it is the keycap's own (digit, U+FE0F, U+20E3), since the digit alone looks the same.

A run of more than :data:`FOLD_LINES` blank lines, or of more than :data:`FOLD_SPACES`
spaces in a line (U+2800 BRAILLE PATTERN BLANK counts as a space), would push what follows out of sight: it is shown as one mark with its
count (``⟦4,200 blank lines⟧``); the exact characters are still what is sent. Terminal
output is the same text: with every control written out, it can carry no escape sequence.

:func:`refusal` is the other half: the characters no comment needs (controls but newline
and tab, bidi overrides and isolates, tag characters) make the strike chain refuse the text,
naming the character and where it is.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import SplitResult, unquote, urlsplit

import regex

#: a run of more blank lines than this is folded into one counted mark
FOLD_LINES = 2
#: a run of more spaces (in one line) than this is folded into one counted mark
FOLD_SPACES = 32
#: the categories of characters that draw nothing (or draw as something else)
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"})
#: embeddings, overrides, isolates and their ends: they reorder what is shown
BIDI_CONTROLS = frozenset({"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})
TAGS = range(0xE0000, 0xE0080)
#: Printable by every Unicode property, yet drawn empty in common fonts, so no property
#: finds them: U+1D159 MUSICAL SYMBOL NULL NOTEHEAD (the other "blank" characters of the
#: usual lists are Default_Ignorable, or whitespace; U+2800 BRAILLE PATTERN BLANK is braille
#: text's space and counts as one in the folding below)
BLANK_GLYPHS = frozenset("\U0001d159")
TAG_NAME = "U+E0000–U+E007F TAG characters"
ZWJ = "\u200d"
VS15_16 = "\ufe0e\ufe0f"
#: Emoji only as the base of a keycap (digit, U+FE0F, U+20E3): a selector after one
#: alone draws the plain character, so it is marked
KEYCAP_BASES = frozenset("0123456789#*")
KEYCAP = "\u20e3"

_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
_PICTO = regex.compile(r"[\p{Extended_Pictographic}\p{Emoji_Modifier}]")
_EMOJI = regex.compile(r"[\p{Emoji}\p{Emoji_Modifier}]")
# blank: whitespace but newline, and U+2800 BRAILLE PATTERN BLANK (a printable character
# that draws nothing, the usual way to make "blank" lines a renderer will not collapse)
_BLANK = r"(?:[^\S\n]|\u2800)"
_BLANK_LINES = regex.compile(rf"(?:\n{_BLANK}*){{{FOLD_LINES + 1},}}(?=\n)")
_SPACES = regex.compile(rf"{_BLANK}{{{FOLD_SPACES + 1},}}")
_MARK_OPEN, _MARK_CLOSE = "\u27e6", "\u27e7"


@lru_cache(maxsize=4096)
def hidden(ch: str) -> bool:
    """Whether ``ch`` draws nothing or steers the text (newline and tab draw themselves)."""
    if ch in "\n\t":
        return False
    return (
        unicodedata.category(ch) in HIDDEN_CATEGORIES
        or unicodedata.bidirectional(ch) in BIDI_CONTROLS
        or ord(ch) in TAGS
        or ch in BLANK_GLYPHS
        or _IGNORABLE.match(ch) is not None
    )


@lru_cache(maxsize=4096)
def refused(ch: str) -> bool:
    """Whether outgoing text may not carry ``ch``: no comment needs it."""
    if ch in "\n\t":
        return False
    return (
        unicodedata.category(ch) == "Cc"
        or unicodedata.bidirectional(ch) in BIDI_CONTROLS
        or ord(ch) in TAGS
    )


def name(ch: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE``; a character without a name says what it is."""
    code = f"U+{ord(ch):04X}"
    label = unicodedata.name(ch, "")
    if label:
        return f"{code} {label}"
    kind = {
        "Cc": "a control character",
        "Co": "a private-use character",
        "Cn": "an unassigned code point",
        "Cs": "a surrogate",
    }.get(unicodedata.category(ch), "a hidden character")
    return f"{code} ({kind})"


def _emoji_part(text: str, i: int) -> bool:
    """The joiner or variation selector at ``i`` builds one emoji glyph."""
    before = text[i - 1] if i > 0 else ""
    if text[i] == ZWJ:
        after = text[i + 1] if i + 1 < len(text) else ""
        # a joiner after an emoji (or its VS16) and before another emoji
        return bool(before and after) and (
            (_PICTO.match(before) is not None or (before in VS15_16 and _emoji_part(text, i - 1)))
            and _PICTO.match(after) is not None
        )
    if text[i] not in VS15_16 or not before or _EMOJI.match(before) is None:
        return False
    return before not in KEYCAP_BASES or text[i : i + 2] == "\ufe0f" + KEYCAP


@dataclass(frozen=True)
class Shown:
    """A text as a person is shown it.

    ``text``: with every hidden character marked and long blank runs folded (not escaped:
    HTML escapes it, a terminal prints it as it is); ``hidden``: how many characters are
    marked; ``names``: which (``U+202E RIGHT-TO-LEFT OVERRIDE``) and how many of each;
    ``folded``: blank lines and spaces shown as a count; ``more``: characters not shown at
    all (only in lists, which say so; a view that approves never cuts)."""

    text: str
    hidden: int = 0
    names: tuple[tuple[str, int], ...] = field(default=())
    folded: int = 0
    more: int = 0

    def __str__(self) -> str:
        return self.text

    def warning(self) -> str:
        """``3 invisible characters, marked ⟦…⟧: U+202E RIGHT-TO-LEFT OVERRIDE ×1, …``."""
        if not self.hidden:
            return ""
        noun = "character" if self.hidden == 1 else "characters"
        listed = ", ".join(f"{n} ×{c:,}" for n, c in self.names[:6])
        rest = f" and {len(self.names) - 6} more kinds" if len(self.names) > 6 else ""
        return (
            f"{self.hidden:,} invisible {noun}, marked {_MARK_OPEN}…{_MARK_CLOSE}: "
            f"{listed}{rest}. {'It is' if self.hidden == 1 else 'They are'} part of the text "
            "and would be sent as is."
        )


def _tag_run(run: str) -> str:
    decoded = "".join(chr(ord(c) - 0xE0000) if 0xE0020 <= ord(c) <= 0xE007E else "?" for c in run)
    return f'{_MARK_OPEN}{len(run):,} tag characters: "{decoded}"{_MARK_CLOSE}'


def _fold(text: str) -> tuple[str, int]:
    folded = 0

    def lines(m: regex.Match[str]) -> str:
        nonlocal folded
        n = m.group().count("\n")
        folded += n
        return f"\n{_MARK_OPEN}{n:,} blank lines{_MARK_CLOSE}"

    def spaces(m: regex.Match[str]) -> str:
        nonlocal folded
        n = len(m.group())
        folded += n
        return f"{_MARK_OPEN}{n:,} spaces{_MARK_CLOSE}"

    return _SPACES.sub(spaces, _BLANK_LINES.sub(lines, text)), folded


def show(text: str | None, max_chars: int | None = None, fold: bool = True) -> Shown:
    """``text`` with every hidden character marked. ``max_chars`` (lists only): show at
    most this many characters of the rendering, after folding (so a list too sees past a
    run of blank lines); ``more`` says how many were left out. ``fold``: a long run of
    blank lines or spaces shown as its count."""
    source = text or ""
    window = len(source) if max_chars is None else max(max_chars * 20, 50_000)
    shown, hidden, names, folded = _render(source[:window], fold)
    beyond = max(0, len(source) - window)  # a list's bounded work: never rendered at all
    if max_chars is None or len(shown) + beyond <= max_chars:
        return Shown(shown, hidden, names, folded)
    more = len(shown) - max_chars + beyond
    return Shown(shown[:max_chars], hidden, names, folded, more)


def _render(source: str, fold: bool) -> tuple[str, int, tuple[tuple[str, int], ...], int]:
    out: list[str] = []
    counts: dict[str, int] = {}
    i, n = 0, len(source)
    while i < n:
        ch = source[i]
        if not hidden(ch) or _emoji_part(source, i):
            out.append(ch)
            i += 1
            continue
        if ord(ch) in TAGS:
            j = i
            while j < n and ord(source[j]) in TAGS:
                j += 1
            counts[TAG_NAME] = counts.get(TAG_NAME, 0) + j - i
            out.append(_tag_run(source[i:j]))
            i = j
            continue
        counts[name(ch)] = counts.get(name(ch), 0) + 1
        out.append(f"{_MARK_OPEN}U+{ord(ch):04X}{_MARK_CLOSE}")
        i += 1
    shown = "".join(out)
    folded = 0
    if fold:
        shown, folded = _fold(shown)
    names = tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return shown, sum(counts.values()), names, folded


def line(text: str | None, max_chars: int = 160) -> str:
    """A one-line field (a name, a title in a list): marked, every run of whitespace one
    space, at most ``max_chars`` characters (a cut ends in "…")."""
    raw, window = text or "", max_chars * 4 + 16  # bounded work for a 1 MB input
    folded = " ".join(show(raw[:window], fold=False).text.split())
    if len(folded) > max_chars or len(raw) > window:
        folded = folded[: max_chars - 1].rstrip() + "…"
    return folded


def link(url: str) -> str:
    """A link as one line, and where it really goes when that is not plain to read: a host
    with a letter of another script that looks Latin (Cyrillic і in gіthub.com) is written
    out in ASCII, ``https://gіthub.com/x (host xn--gthub-n2e.com)``, and so is the host
    after a user part (``https://github.com@evil.example/`` goes to evil.example)."""
    shown = line(url, 2048)
    try:
        parts = _as_browsed(url)
        host = unquote(parts.hostname or "")  # a browser reads %65vil.io as evil.io
        if host.isascii() and parts.username is None and host == (parts.hostname or ""):
            return shown
        return f"{shown} (host {host.encode('idna').decode()})"
    except (ValueError, UnicodeError):  # a host no resolver would take either
        return f"{shown} (a host that is not plain ASCII)"


def host(url: str) -> str:
    """The host a browser opens for ``url``, in ASCII: said beside a link's label when the
    label is platform text (a title can read like any other link)."""
    try:
        return unquote(_as_browsed(url).hostname or "").encode("idna").decode()
    except (ValueError, UnicodeError):
        return "a host that is not plain ASCII"


def _as_browsed(url: str) -> SplitResult:
    """``url`` split as a browser reads it: any slashes after http(s):, none for a bare domain."""
    return urlsplit(re.sub(r"^(https?:)?[/\\]*", r"\1//", url, flags=re.I))


def has_hidden(text: str) -> bool:
    """Whether a person would see a mark anywhere in ``text``."""
    return show(text, fold=False).hidden > 0


def plain(text: str) -> str:
    """A line for a terminal, already composed: any hidden character left in it marked
    (idempotent on text this module drew; nothing folded)."""
    return show(text, fold=False).text


def json_escaped(document: str) -> str:
    """A JSON document (``json.dumps(..., ensure_ascii=False)``) with every hidden character
    written as its ``\\u`` escape: the same JSON value, safe on a terminal."""
    return "".join(json.dumps(c)[1:-1] if hidden(c) else c for c in document)


#: what starts each quoted line: a text's own lines cannot pass for the surface's
BAR = "  | "


def quoted(text: str) -> list[str]:
    """Each line of ``text`` (already drawn) behind the bar: the approval dialog and
    `gwanjong review show` quote what is sent this way."""
    return [(BAR + line) if line else BAR.rstrip() for line in text.split("\n")]


def terminal(text: str | None) -> list[str]:
    """The text for a terminal, line by line, then the warning if any: no raw control
    character (ESC, CSI, OSC 52, C1, bidi) can reach the terminal."""
    s = show(text)
    lines = s.text.split("\n")
    return [*lines, f"WARNING: {s.warning()}"] if s.hidden else lines


@dataclass(frozen=True)
class Problem:
    """A character outgoing text may not carry, and where it is (1-based)."""

    char: str
    at: int

    def __str__(self) -> str:
        return f"{name(self.char)} at character {self.at:,}"


def problems(text: str) -> list[Problem]:
    return [Problem(ch, i + 1) for i, ch in enumerate(text) if refused(ch)]


def refusal(text: str, what: str = "the text") -> str:
    """Why ``text`` may not be sent ("" when it may): the first such character, where it
    is, and how many more there are."""
    found = problems(text)
    if not found:
        return ""
    first = found[0]
    rest = len(found) - 1
    more = f" (and {rest:,} more such character{'s' if rest > 1 else ''})" if rest else ""
    return (
        f"{what} carries {first}{more}; remove {'them' if rest else 'it'}. Control characters "
        "(but newline and tab), bidi overrides and isolates, and tag characters are never "
        "sent: they hide or reorder what a person reads."
    )
