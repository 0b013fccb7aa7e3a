"""A strike row written straight into the record, for tests about what reads it."""

from __future__ import annotations

from typing import Any

from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import Strike, StrikeStatus


def strike_row(store: StrikeStore, **fields: Any) -> Strike:
    """``store.insert`` of a live dev.to comment still pending, but for ``fields``."""
    row: dict[str, Any] = {
        "intent_key": "k",
        "platform": "devto",
        "target": "t1",
        "action": "comment",
        "content_hash": "h",
        "content": "hello there",
        "mode": "live",
        "status": StrikeStatus.PENDING,
    }
    return store.insert(**(row | fields))
