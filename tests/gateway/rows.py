"""A strike row written straight into the record, for tests about what reads it."""

from __future__ import annotations

from typing import Any

from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import Strike, StrikeAction, StrikeStatus


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


def strike_of(**fields: Any) -> Strike:
    """A `Strike` as the record reads one back (none is stored): a live dev.to comment,
    posted, but for ``fields``."""
    blank = ("intent_key", "target", "target_url", "author", "opportunity", "content_hash")
    blank += ("content", "title", "reason", "approver", "result_id", "result_url")
    row: dict[str, Any] = dict.fromkeys(blank, "") | {"id": 1, "platform": "devto"}
    row |= {"action": StrikeAction.COMMENT, "mode": "live", "status": StrikeStatus.POSTED}
    row |= {"context": {}, "policy": [], "created_at": 0.0, "updated_at": 0.0}
    return Strike(**(row | fields))
