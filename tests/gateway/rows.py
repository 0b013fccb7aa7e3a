"""A strike row, a claim or an approval written straight into the record, for tests about
what reads it; the record's rows read back."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Any

from gwanjong_gateway.record.rows.approval_rows import NewApproval
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules import approvals
from gwanjong_gateway.rules.ledger import (
    ClaimRequest,
    Strike,
    StrikeAction,
    StrikeStatus,
    intent_key,
)
from gwanjong_gateway.rules.outgoing import legacy_digest


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


def history(state_dir: Path) -> list[Strike]:
    """The strike record in ``state_dir``, newest first."""
    with closing(StrikeStore(state_dir / "gwanjong.db")) as store:
        return store.history(limit=100)


def claim_of(target: str, text: str = "hello there", by: str = "alice") -> ClaimRequest:
    """A live dev.to comment by ``by`` to ann's ``target``, asked of ``store.decide``: at most
    one a day, no interval, no cool-down."""
    row = {
        "intent_key": intent_key("devto", target, "comment", text),
        "platform": "devto",
        "target": target,
        "author": "ann",
        "action": "comment",
        "content_hash": "h",
        "content": text,
        "mode": "live",
        "status": StrikeStatus.PENDING,
        "policy": ["mode=live"],
        "principal": by,
    }
    return ClaimRequest(row=row, live=True, cap=1, interval_s=0, cooldown_days=0)


def strike_of(**fields: Any) -> Strike:
    """A `Strike` as the record reads one back (none is stored): a live dev.to comment,
    posted, but for ``fields``."""
    blank = ("intent_key", "target", "target_url", "author", "opportunity", "content_hash")
    blank += ("content", "title", "reason", "approver", "result_id", "result_url")
    row: dict[str, Any] = dict.fromkeys(blank, "") | {"id": 1, "platform": "devto"}
    row |= {"action": StrikeAction.COMMENT, "mode": "live", "status": StrikeStatus.POSTED}
    row |= {"context": {}, "policy": [], "created_at": 0.0, "updated_at": 0.0}
    return Strike(**(row | fields))


def approval_of(target: str, text: str, expires_at: float, **fields: Any) -> NewApproval:
    """A pending dev.to comment's approval as the chain opens one (its intent and lock keys,
    the digest of its text), but for ``fields``; ``store.open_approval`` records it."""
    key = intent_key("devto", target, "comment", text)
    row: dict[str, Any] = {
        "principal": "",
        "platform": "devto",
        "target": target,
        "target_url": f"https://dev.to/{target}",
        "author": "ann",
        "opportunity": f"devto:{target}",
        "action": "comment",
        "intent_key": key,
        "lock_key": approvals.lock_key("devto", target, key, "comment"),
        "title": "",
        "text": text,
        "body": text,
        "digest": legacy_digest("", text),
        "post": {"id": target, "platform": "devto"},
        "context": {},
        "policy": ["mode=confirm"],
        "expires_at": expires_at,
        "token_hash": "",
    }
    return NewApproval(**(row | fields))
