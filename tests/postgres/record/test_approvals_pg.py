"""Pending approvals on a real PostgreSQL: one pending approval per target however many
connections open it at once, and an approval consumed by exactly one claim when many
approvers (and a decline) race, each on its own connection."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gwanjong_gateway.record.rows.approval_rows import NewApproval
from gwanjong_gateway.record.store import PostgresStrikeStore
from gwanjong_gateway.rules import approvals
from gwanjong_gateway.rules.approvals import ApprovalStatus, ApprovalUse, Channel
from tests.gateway.rows import approval_of, claim_of
from tests.postgres.record.test_store_pg import NOW, together

WORKERS = 8
TEXT = "hello there"


def fields(target: str = "p1") -> NewApproval:
    return approval_of(
        target, TEXT, NOW + 3600, principal="alice", token_hash=approvals.token_hash("t")
    )


def test_one_pending_approval_per_target_across_connections(pg_url: str) -> None:
    opened: list[Any] = together(
        pg_url, [lambda s: s.open_approval(NOW, fields()) for _ in range(WORKERS)]
    )
    assert len({a.id for a, _ in opened}) == 1
    assert sum(created for _, created in opened) == 1


def test_an_approval_is_consumed_by_exactly_one_claim(pg_url: str) -> None:
    store = PostgresStrikeStore(pg_url)
    approval, _ = store.open_approval(NOW, fields())
    store.close()
    use = ApprovalUse(approval.id, approval.digest, "ops", Channel.TERMINAL)
    req = claim_of("p1", TEXT)
    claim = type(req)(**{**req.__dict__, "approval": use})

    def decline(s: PostgresStrikeStore) -> Any:
        return s.close_approval(approval.id, ApprovalStatus.DECLINED, NOW, by="bob")

    jobs: list[Callable[[PostgresStrikeStore], Any]] = [
        lambda s: s.decide(claim, NOW, insert=True) for _ in range(WORKERS - 1)
    ]
    verdicts: list[Any] = together(pg_url, [*jobs, decline])
    claimed = [v for v in verdicts[:-1] if v.row is not None]
    declined = verdicts[-1]
    store = PostgresStrikeStore(pg_url)
    final = store.approval(approval.id)
    rows = store.history(limit=100)
    store.close()
    assert final is not None
    if declined is not None:  # the decline came first: no claim at all
        assert claimed == [] and final.status is ApprovalStatus.DECLINED and rows == []
    else:
        assert len(claimed) == 1 and final.status is ApprovalStatus.APPROVED
        assert final.record == claimed[0].row.id and len(rows) == 1
    refusals = [v.refusal for v in verdicts[:-1] if v.row is None]
    assert all("already" in r for r in refusals if r), refusals
