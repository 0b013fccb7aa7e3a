"""The strike record on a real PostgreSQL (`pg_url`, tests/conftest.py: a fresh database
per test)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gwanjong_gateway.record.store import PostgresStrikeStore


@pytest.fixture
def store(pg_url: str) -> Iterator[PostgresStrikeStore]:
    """The strike record on that database, closed after the test."""
    opened = PostgresStrikeStore(pg_url)
    yield opened
    opened.close()
