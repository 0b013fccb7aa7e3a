"""Platform and outgoing text as the console shows it: drawn by the one renderer
(`contract.visible`: every hidden or steering character a visible mark, counted, with a
warning), and links only when they are http(s).

A page that approves (an approval, a hand-off, a record) shows the whole text: its box
scrolls (`pre.platform` in console.css), nothing is cut. A list may show the start of a
long text, and then says how many characters it left out (`Shown.more`)."""

from __future__ import annotations

from gwanjong_gateway.web import safe_url
from gwanjong_shared.contract.visible import Shown, line, show

__all__ = ["LINE_CHARS", "LIST_CHARS", "Shown", "line", "safe_url", "shown"]

#: how much of one text a list shows (it says how much more there is)
LIST_CHARS = 400
#: titles, names and other one-line fields
LINE_CHARS = 160


def shown(text: str | None, max_chars: int | None = None) -> Shown:
    """``text`` whole (``max_chars``: a list's cut, which the page then names)."""
    return show(text, max_chars)
