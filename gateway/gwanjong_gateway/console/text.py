"""Platform and outgoing text as the console shows it: drawn by `contract.visible` (hidden
characters marked and counted), links only when http(s). A page that approves shows the
whole text; a list may cut it and says how much (`Shown.more`).
"""

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
