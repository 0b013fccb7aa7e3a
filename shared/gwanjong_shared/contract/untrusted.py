"""Text written by strangers, made safe to show a model or write to a log.

Platform text can carry characters that are invisible or that steer a terminal or a
renderer: C0/C1 controls (NUL, ESC, BEL), bidi overrides and isolates, zero-width and
other format characters, Unicode tag characters (ASCII smuggling), variation selectors and
the other default-ignorable characters (which can smuggle words the same way), printable
characters fonts draw empty (U+1D159 MUSICAL SYMBOL NULL NOTEHEAD), and line
separators other than ``\\n`` that some parsers split on. :func:`clean` removes them (line and
paragraph separators become ``\\n``), :func:`one_line` also folds every line break into a
space and bounds the length, and :func:`quote` is how an error echoes an input: cleaned,
single-line, at most ~200 characters.

This is for what a *model* (or a log) reads. A person deciding a write must instead see
every character: `visible` marks them rather than removing them.
"""

from __future__ import annotations

import unicodedata

import regex

from gwanjong_shared.contract.visible import BLANK_GLYPHS

#: how much of any input an error may quote
ECHO_CHARS = 200

# Line breaks other than \n that some readers honour (str.splitlines() does): \r, \v, \f,
# \x1c-\x1e, NEL, U+2028, U+2029.
_BREAKS = regex.compile(r"\r\n?|[\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
# Every other control or format character, except \n and \t, every default-ignorable
# one (variation selectors: a run of them after one emoji smuggles words, as tag
# characters do; Hangul fillers, the combining grapheme joiner) and the printable ones
# fonts draw empty, which `visible` marks (BLANK_GLYPHS, kept there once). What builds one
# emoji glyph stays, as `visible` draws it: a zero-width joiner between two emoji (👩‍💻),
# a variation selector 15/16 right after an emoji (❤️).
_HIDDEN = regex.compile(
    r"[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}"
    + "".join(sorted(BLANK_GLYPHS))
    + r"--[\n\t\u200d\ufe0e\ufe0f]]"
    r"|(?<![\p{Extended_Pictographic}\ufe0e\ufe0f\p{Emoji_Modifier}])\u200d"
    r"|\u200d(?![\p{Extended_Pictographic}\p{Emoji_Modifier}])"
    r"|(?<![\p{Emoji}\p{Emoji_Modifier}])[\ufe0e\ufe0f]",
    regex.V1,
)
_SPACES = regex.compile(r"\s+")


def clean(text: str, max_chars: int | None = None) -> str:
    """`text` without hidden or steering characters; other line breaks become \\n.

    `max_chars` bounds the work first: a 1 MB input is cut before it is scanned."""
    if max_chars is not None and len(text) > max_chars:
        text = text[: max_chars - 1] + "…"
    return _HIDDEN.sub("", _BREAKS.sub("\n", text))


def normalise(text: str) -> str:
    """Case, Unicode form, whitespace and characters that draw nothing (a zero-width
    space, a soft hyphen, a variation selector) do not make a text different: the same
    post with one of those in it is the same post."""
    return " ".join(unicodedata.normalize("NFKC", clean(text)).casefold().split())


def one_line(text: str, max_chars: int = 120) -> str:
    """Cleaned, every run of whitespace one space, at most `max_chars` characters."""
    # Cut generously before cleaning (bounded work), then exactly after folding.
    folded = _SPACES.sub(" ", clean(text, max_chars * 4 + 16)).strip()
    if len(folded) > max_chars:
        folded = folded[: max_chars - 1].rstrip() + "…"
    return folded


def quote(text: object, max_chars: int = ECHO_CHARS) -> str:
    """An input as an error may echo it: `repr`-like quotes, one line, bounded."""
    raw = text if isinstance(text, str) else repr(text)
    shown = one_line(raw, max_chars)
    extra = len(raw) - max_chars
    suffix = f" (+{extra} chars)" if extra > 0 else ""
    # else '\u202edevto' reads back as 'devto', and "unknown 'devto'" beside "Enabled: devto"
    hidden = " (hidden characters left out)" if has_hidden(raw[: max_chars * 4]) else ""
    return f"'{shown}'{suffix}{hidden}"


def has_hidden(text: str) -> bool:
    """True if `text` holds any character :func:`clean` would remove or change."""
    return bool(_HIDDEN.search(text) or _BREAKS.search(text))
