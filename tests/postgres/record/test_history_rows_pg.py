"""The console's history pages and open hand-offs on a real PostgreSQL: the same answers
as on SQLite (tests/console/test_history_rows.py)."""

from __future__ import annotations

from gwanjong_gateway.record.store import PostgresStrikeStore
from tests.console.test_history_rows import check_history_page


def test_history_pages_and_open_handoffs(pg_url: str) -> None:
    store = PostgresStrikeStore(pg_url)
    try:
        check_history_page(store)
    finally:
        store.close()
