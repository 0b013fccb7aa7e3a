"""`pending_handoffs`, `confirm_handoff` and the author cool-down on a real PostgreSQL:
the same answers as on SQLite (its own `FOR UPDATE` and placeholders), and the index."""

from __future__ import annotations

from gwanjong_gateway.record.store import PostgresStrikeStore
from tests.gateway.record.test_store_handoff import (
    check_author_cooldown,
    check_dismiss_expire_and_claims,
    check_pending_handoffs,
)


def test_pending_handoffs_lists_the_open_handoffs_and_confirm_closes_one(pg_url: str) -> None:
    store = PostgresStrikeStore(pg_url)
    try:
        check_pending_handoffs(store)
        index = store._x(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'strikes_opportunity'"
        ).fetchone()
        assert index is not None and "(opportunity, status)" in index["indexdef"], index
    finally:
        store.close()


def test_the_author_cooldown_counts_and_checks_comments_only(pg_url: str) -> None:
    store = PostgresStrikeStore(pg_url)
    try:
        check_author_cooldown(store)
    finally:
        store.close()


def test_handoffs_are_dismissed_and_expire_and_claims_are_noted(pg_url: str) -> None:
    store = PostgresStrikeStore(pg_url)
    try:
        check_dismiss_expire_and_claims(store)
    finally:
        store.close()
