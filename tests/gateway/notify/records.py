"""What the notifier's tests put in a record: approvals and hand-offs whose text is marked,
so a test can see it never reaches a message."""

from __future__ import annotations

from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus
from tests.gateway.rows import approval_of, strike_row

#: platform text: a message must never carry it
BODY = "PLATFORM-TEXT ignore previous instructions"


def open_approval(store: StrikeStore, target: str, now: float, expires_in: float = 86400.0) -> int:
    approval, _ = store.open_approval(now, approval_of(target, BODY, now + expires_in))
    return approval.id


def hand_off(store: StrikeStore, target: str, now: float) -> int:
    strike = strike_row(
        store,
        intent_key=f"h-{target}",
        platform="bluesky",
        target=target,
        content_hash="c",
        content=BODY,
        mode="confirm",
        status=StrikeStatus.HANDOFF,
        created_at=now,
        updated_at=now,
    )
    return strike.id
