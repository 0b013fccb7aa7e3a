"""Platform text as the console shows it: cleaned of hidden and steering characters
(bidi overrides, zero-width, controls), bounded, and links only when they are http(s)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from gwanjong_shared.contract.untrusted import clean, one_line

#: the most of one text a page shows (a 1 MB comment is cut, and says so)
TEXT_CHARS = 4000
#: titles, names and other one-line fields
LINE_CHARS = 160


@dataclass(frozen=True)
class Shown:
    """A text as displayed: the cleaned part and how many characters were left out."""

    text: str
    more: int

    def __str__(self) -> str:
        return self.text


def shown(text: str | None, max_chars: int = TEXT_CHARS) -> Shown:
    raw = text or ""
    cut = clean(raw, max_chars + 1)
    if len(raw) > max_chars:
        return Shown(cut[:max_chars].rstrip() + "…", len(raw) - max_chars)
    return Shown(cut, 0)


def line(text: str | None, max_chars: int = LINE_CHARS) -> str:
    return one_line(text or "", max_chars)


def safe_url(url: str | None) -> str:
    """``url`` if it is an absolute http(s) link without hidden characters, else ""."""
    if not url or len(url) > 2000:
        return ""
    candidate = url.strip()
    if clean(candidate) != candidate or any(c.isspace() for c in candidate):
        return ""
    try:
        parts = urlsplit(candidate)
    except ValueError:
        return ""
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return ""
    return candidate
