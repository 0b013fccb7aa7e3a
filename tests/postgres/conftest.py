"""A real PostgreSQL for these tests: `GWANJONG_TEST_PG_URL` (`.ci/run` starts one; locally
`eval "$(bash scripts/pg start)"`). Each test gets its own fresh database. In CI (`CI` or
`GWANJONG_REQUIRE_PG` set) a missing or unreachable server FAILS the tests: they must
never pass by skipping."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql

from gwanjong_gateway.record.store import PostgresStrikeStore

HOW = 'start one with: eval "$(bash scripts/pg start)"  (then pytest tests/postgres)'


def _missing(why: str) -> None:
    if os.environ.get("CI") or os.environ.get("GWANJONG_REQUIRE_PG"):
        pytest.fail(f"PostgreSQL is required here but {why}; .ci/run starts it", pytrace=False)
    pytest.skip(f"{why}; {HOW}")


@pytest.fixture(scope="session")
def pg_server() -> str:
    url = os.environ.get("GWANJONG_TEST_PG_URL", "")
    if not url:
        _missing("GWANJONG_TEST_PG_URL is not set")
    try:
        psycopg.connect(url, connect_timeout=20).close()
    except psycopg.OperationalError as exc:
        _missing(f"PostgreSQL at GWANJONG_TEST_PG_URL is unreachable ({exc})")
    return url


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """The URL of a new, empty database, dropped after the test."""
    name = f"gwanjong_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    yield pg_server.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


@pytest.fixture
def store(pg_url: str) -> Iterator[PostgresStrikeStore]:
    """The strike record on that database, closed after the test."""
    opened = PostgresStrikeStore(pg_url)
    yield opened
    opened.close()
