"""Fake platforms for the gateway's fast tier (tests/fakes): a fresh one per test, and a
fake clock; each MCP protocol era; the record's two engines, for a test that asserts the
same behaviour on both."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gwanjong_gateway.record.store import PostgresStrikeStore, StrikeStore
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import FORUM


@pytest.fixture
def forum() -> FakePlatform:
    """A forum-shaped platform named "devto": posts auto, comments and likes human."""
    return FakePlatform(FORUM)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["legacy", "auto"])  # 2025-11-25 and 2026-07-28
def mode(request: pytest.FixtureRequest) -> str:
    """Each protocol era a client may speak (a test that takes ``mode`` runs in both)."""
    return str(request.param)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest) -> str:
    """The `[store] url` of each engine: "" (SQLite files in the state dir) and a fresh
    PostgreSQL database. The second param is in the postgres tier (its marker), so the
    fast tier deselects it and the postgres tier runs it."""
    return request.getfixturevalue("pg_url") if request.param == "postgres" else ""


@pytest.fixture
def record(store_url: str, tmp_path: Path) -> Iterator[StrikeStore]:
    """The strike record on each engine (`store_url`), closed after the test."""
    store = PostgresStrikeStore(store_url) if store_url else StrikeStore(tmp_path / "gwanjong.db")
    yield store
    store.close()
