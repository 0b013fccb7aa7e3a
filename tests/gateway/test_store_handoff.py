"""`StrikeStore.pending_handoff`: one indexed query finds the hand-off a person confirms
(SQLite here; the same checks run on PostgreSQL in tests/postgres/test_handoff_pg.py)."""

from __future__ import annotations

import itertools
from pathlib import Path

from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus

NOW = 1_800_000_000.0
_KEYS = itertools.count()


def add(store: StrikeStore, opportunity: str, status: StrikeStatus, platform: str = "devto") -> int:
    return store.insert(
        intent_key=f"k{next(_KEYS)}",  # each row its own intent
        platform=platform,
        target="",
        opportunity=opportunity,
        action="comment",
        content_hash="h",
        content="hello",
        mode="live",
        status=status,
        now=NOW,
    ).id


def check_pending_handoff(store: StrikeStore) -> None:
    """The newest `handoff` row of the opportunity on its platform, nothing else."""
    assert store.pending_handoff("devto:1", "devto") is None
    older = add(store, "devto:1", StrikeStatus.HANDOFF)
    newer = add(store, "devto:1", StrikeStatus.HANDOFF)
    add(store, "devto:1", StrikeStatus.REFUSED)
    add(store, "devto:1", StrikeStatus.POSTED)
    add(store, "devto:2", StrikeStatus.HANDOFF)
    add(store, "devto:1", StrikeStatus.HANDOFF, platform="reddit")
    found = store.pending_handoff("devto:1", "devto")
    assert found is not None and found.id == newer and found.status is StrikeStatus.HANDOFF
    store.update(newer, status=StrikeStatus.POSTED)
    found = store.pending_handoff("devto:1", "devto")
    assert found is not None and found.id == older
    store.update(older, status=StrikeStatus.POSTED)
    assert store.pending_handoff("devto:1", "devto") is None
    assert store.pending_handoff("devto:3", "devto") is None


def test_pending_handoff_finds_the_newest_open_handoff(tmp_path: Path) -> None:
    store = StrikeStore(tmp_path / "gwanjong.db")
    try:
        check_pending_handoff(store)
    finally:
        store.close()


def test_pending_handoff_is_one_indexed_lookup(tmp_path: Path) -> None:
    store = StrikeStore(tmp_path / "gwanjong.db")
    try:
        for i in range(50):
            add(store, f"devto:{i}", StrikeStatus.POSTED)
        store._x("ANALYZE")
        plan = store._x(
            "EXPLAIN QUERY PLAN SELECT * FROM strikes WHERE opportunity = ? AND status = ? "
            "AND platform = ? ORDER BY id DESC LIMIT 1",
            ("devto:1", StrikeStatus.HANDOFF, "devto"),
        ).fetchall()
        details = " ".join(str(row["detail"]) for row in plan)
        assert "USING INDEX strikes_opportunity" in details, details
    finally:
        store.close()
