"""`pending_handoff` on a real PostgreSQL: the same answers as on SQLite, and the index."""

from __future__ import annotations

from gwanjong_gateway.record.store_pg import PostgresStrikeStore
from tests.gateway.test_store_handoff import check_pending_handoff


def test_pending_handoff_finds_the_newest_open_handoff(pg_url: str) -> None:
    store = PostgresStrikeStore(pg_url)
    try:
        check_pending_handoff(store)
        index = store._x(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'strikes_opportunity'"
        ).fetchone()
        assert index is not None and "(opportunity, status)" in index["indexdef"], index
    finally:
        store.close()
