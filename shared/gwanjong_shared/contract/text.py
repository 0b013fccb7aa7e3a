"""Counting text the way platforms do."""

from __future__ import annotations

import regex

from gwanjong_shared.contract import Unit

_GRAPHEME = regex.compile(r"\X")


def graphemes(text: str) -> int:
    """User-perceived characters (extended grapheme clusters): 👩‍💻 is one, 한 is one."""
    return len(_GRAPHEME.findall(text))


def measure(text: str, unit: Unit) -> int:
    if unit == "graphemes":
        return graphemes(text)
    if unit == "bytes":
        return len(text.encode("utf-8"))
    if unit == "chars":
        return len(text)
    raise ValueError(f"unit {unit!r} needs the platform's own counter")
