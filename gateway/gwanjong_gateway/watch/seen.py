"""The watcher's finds in this process, for the console's inbox count: summons noticed
since the person last opened the Inbox page. In memory: a count to glance at, not a record
(the record keeps the watcher's cursors)."""

from __future__ import annotations

import weakref

from gwanjong_gateway.gateway import Gateway

_noticed: weakref.WeakKeyDictionary[Gateway, int] = weakref.WeakKeyDictionary()


def watching(gw: Gateway) -> None:
    """A watcher runs in this process: the count starts at 0 (not absent)."""
    _noticed.setdefault(gw, 0)


def add(gw: Gateway, count: int) -> None:
    _noticed[gw] = _noticed.get(gw, 0) + count


def noticed(gw: Gateway) -> int | None:
    """New summons noticed here since the Inbox page was last opened; None: no watcher."""
    return _noticed.get(gw)


def seen(gw: Gateway) -> None:
    """The person opened the Inbox page."""
    if gw in _noticed:
        _noticed[gw] = 0
