"""`pending_handoffs`, `confirm_handoff`, the author cool-down and the console's history
pages on a real PostgreSQL: the same answers as on SQLite (its own `FOR UPDATE` and
placeholders; tests/gateway/record/test_store_handoff.py,
tests/gateway/console/test_history_rows.py), and the index."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gwanjong_gateway.record.store import PostgresStrikeStore
from tests.gateway.console.test_history_rows import check_history_page
from tests.gateway.record.test_store_handoff import (
    check_author_cooldown,
    check_dismiss_expire_and_claims,
    check_pending_handoffs,
)


@pytest.mark.parametrize(
    "check",
    [check_author_cooldown, check_dismiss_expire_and_claims, check_history_page],
    ids=["author-cooldown", "dismissed-expired-claims", "history-pages-and-open-handoffs"],
)
def test_the_same_answers_as_on_sqlite(
    store: PostgresStrikeStore, check: Callable[[PostgresStrikeStore], None]
) -> None:
    check(store)


def test_pending_handoffs_lists_the_open_handoffs_and_confirm_closes_one(
    store: PostgresStrikeStore,
) -> None:
    check_pending_handoffs(store)
    index = store._x(
        "SELECT indexdef FROM pg_indexes WHERE indexname = 'strikes_opportunity'"
    ).fetchone()
    assert index is not None and "(opportunity, status)" in index["indexdef"], index
