"""The one storage layer's own promises: a SQLite busy that SQLite raises without waiting
is retried (never reaching the caller) until the busy timeout, and a PostgreSQL statement
is made once from the ``?`` form, never from text holding a ``%``; rows read one at a time
hold the connection only while they are read; on each engine, a row reads back whole and
an enum is stored by its value."""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from pathlib import Path
from typing import NamedTuple

import pytest

from gwanjong_gateway.record.sql.engine import SqliteEngine, _pg_sql  # pyright: ignore[reportPrivateUsage]
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus
from tests.gateway.rows import claim_of

NOW = 1_800_000_000.0


def busy() -> sqlite3.OperationalError:
    exc = sqlite3.OperationalError("database is locked")
    exc.sqlite_errorcode = sqlite3.SQLITE_BUSY  # pyright: ignore[reportAttributeAccessIssue]
    return exc


def test_busy_without_waiting_is_retried_and_other_errors_are_not(tmp_path: Path) -> None:
    engine = SqliteEngine(tmp_path / "x.db", busy_timeout_s=2.0)
    tries: list[int] = []

    def step() -> str:
        tries.append(1)
        if len(tries) < 3:
            raise busy()
        return "done"

    assert engine._retry(step) == "done"  # pyright: ignore[reportPrivateUsage]
    assert len(tries) == 3

    def other() -> None:
        tries.append(1)
        raise sqlite3.OperationalError("no such table: nope")

    with pytest.raises(sqlite3.OperationalError):
        engine._retry(other)  # pyright: ignore[reportPrivateUsage]
    assert len(tries) == 4  # once: not retried
    engine.close()


def test_busy_past_the_timeout_reaches_the_caller(tmp_path: Path) -> None:
    engine = SqliteEngine(tmp_path / "x.db", busy_timeout_s=0.05)

    def step() -> None:
        raise busy()

    with pytest.raises(sqlite3.OperationalError):
        engine._retry(step)  # pyright: ignore[reportPrivateUsage]
    engine.close()


def test_the_principal_is_a_column_and_rows_read_back_whole(record: StrikeStore) -> None:
    granted = record.decide(claim_of("t1", by="bob"), NOW, insert=True).row
    assert granted is not None
    assert (granted.principal, granted.status, granted.created_at) == ("bob", "pending", NOW)
    settled = record.settle(granted.id, StrikeStatus.POSTED, result_url="https://x/1")
    assert settled is not None and settled.status is StrikeStatus.POSTED
    assert record.settle(granted.id, StrikeStatus.FAILED) is None  # settled once only
    assert record.acted_among([("devto", "t1"), ("devto", "t9")]) == {("devto", "t1")}
    assert [r.principal for r in record.history()] == ["bob"]
    row = record.engine.x("SELECT principal, status FROM strikes").fetchone()
    assert (row["principal"], row["status"]) == ("bob", "posted")  # the enum's value, not its name


def test_postgres_placeholders() -> None:
    assert _pg_sql("SELECT a FROM t WHERE b = ? AND c IN (?, ?)") == (
        "SELECT a FROM t WHERE b = %s AND c IN (%s, %s)"
    )
    with pytest.raises(ValueError, match="bind the value"):
        _pg_sql("SELECT a FROM t WHERE b LIKE 'x%'")


def test_a_row_names_only_strike_columns(record: StrikeStore) -> None:
    """A column name comes from the `Strike` dataclass, never from a caller's text."""
    with pytest.raises(TypeError, match="not a strike record column: id = 1; --"):
        record.insert(**{"id = 1; --": 1})


class Pair(NamedTuple):
    a: int
    b: str


def test_rows_one_at_a_time_then_the_lock_is_free(tmp_path: Path) -> None:
    engine = SqliteEngine(tmp_path / "x.db")
    engine.x("CREATE TABLE t (a INTEGER, b TEXT)")
    engine.insert("t", [Pair(n, str(n)) for n in range(3)])
    assert list(engine.each(Pair, "SELECT a, b FROM t ORDER BY a")) == engine.rows(
        Pair, "SELECT a, b FROM t ORDER BY a"
    )
    with closing(engine.each(Pair, "SELECT a, b FROM t ORDER BY a")) as rows:
        first = next(rows)  # a reader that stops half-way (an error in its counting)
    assert type(first) is Pair and first == Pair(0, "0")
    taken: list[bool] = []

    def take() -> None:
        taken.append(engine.lock.acquire(timeout=2))
        if taken[0]:
            engine.lock.release()

    other = threading.Thread(target=take)
    other.start()
    other.join()
    assert taken == [True]  # another thread (the usage writer) is not kept waiting
    engine.close()
