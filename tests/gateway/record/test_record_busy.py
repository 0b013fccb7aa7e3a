"""A busy SQLite record is told by SQLite's error code, not by the words of its message:
a second connection holding the write lock makes it busy for real; a message that merely
says "locked" is not busy."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, closing
from pathlib import Path

import anyio
import pytest

from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.sql.sqlite_errors import Trouble, primary_code, trouble
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_shared.contract.errors import ErrorKind, PlatformError

pytestmark = pytest.mark.anyio

#: how long a statement waits for the lock here; the lock is held throughout, so the
#: outcome does not depend on how long the wait really takes
WAIT_S = 0.05


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    path = tmp_path / "gwanjong.db"
    StrikeStore(path).close()  # created and migrated
    return path


@pytest.fixture
def holder(db_file: Path) -> Iterator[sqlite3.Connection]:
    """Another process's claim: a connection holding the write lock."""
    db = sqlite3.connect(db_file, isolation_level=None)
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    finally:
        db.execute("ROLLBACK")
        db.close()


def row(target: str) -> dict[str, object]:
    return {
        "intent_key": f"k-{target}",
        "platform": "devto",
        "target": target,
        "action": "comment",
        "content_hash": "h",
        "content": "words",
        "mode": "live",
        "status": "pending",
    }


def test_a_held_write_lock_is_busy_by_its_code(db_file: Path, holder: sqlite3.Connection) -> None:
    with pytest.raises(sqlite3.OperationalError) as caught:
        StrikeStore(db_file, busy_timeout_s=WAIT_S)  # opening migrates: BEGIN IMMEDIATE
    assert primary_code(caught.value) == sqlite3.SQLITE_BUSY
    assert trouble(caught.value) is Trouble.BUSY


def test_a_message_saying_locked_is_not_busy(tmp_path: Path) -> None:
    with (
        closing(sqlite3.connect(tmp_path / "x.db")) as db,
        pytest.raises(sqlite3.OperationalError, match="locked") as caught,
    ):
        db.execute("SELECT * FROM locked_by_busy")  # no such table: an SQLITE_ERROR
    assert trouble(caught.value) is Trouble.UNREADABLE


def test_errors_sqlite_did_not_raise_have_no_code() -> None:
    ours = sqlite3.DatabaseError("integrity check failed: database is locked")
    assert primary_code(ours) is None and trouble(ours) is Trouble.UNREADABLE


async def test_records_answer_a_busy_record_unavailable_and_stay_usable(
    db_file: Path,
) -> None:
    with closing(Records(db_file, busy_timeout_s=WAIT_S)) as records:
        assert await records.open()  # a connection made before the lock is taken
        db = sqlite3.connect(db_file, isolation_level=None)
        db.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(PlatformError) as caught:
                await records.run(StrikeStore.insert, **row("t1"))
        finally:
            db.execute("ROLLBACK")
            db.close()
        assert caught.value.kind is ErrorKind.UNAVAILABLE
        assert caught.value.message == (
            "the strike record is busy (locked by another gwanjong process); try again in 1 s."
        )
        assert records.broken == ""  # busy is not broken: the next call goes through
        written = await records.run(StrikeStore.insert, **row("t1"))
        assert (written.target, written.status) == ("t1", "pending")


async def test_a_read_does_not_wait_behind_the_records_thread(db_file: Path) -> None:
    """SQLite: a question that only reads is answered on the event loop, beside a write that
    holds the record's one thread (it would otherwise wait for that write to end)."""
    with closing(Records(db_file, busy_timeout_s=WAIT_S)) as records:
        assert await records.open()
        written = await records.run(StrikeStore.insert, **row("t1"))
        release = threading.Event()

        def slow_write(store: StrikeStore) -> None:
            release.wait()  # the record's thread is taken until the read has answered
            store.insert(**row("t2"))

        with anyio.fail_after(30):  # a guard against a hang, not a measurement
            async with anyio.create_task_group() as tg:
                tg.start_soon(records.run, slow_write)
                await anyio.wait_all_tasks_blocked()
                try:
                    read = await records.run(StrikeStore.get, written.id)
                    assert read is not None and read.target == "t1"
                finally:
                    release.set()
        assert {s.target for s in await records.run(StrikeStore.history)} == {"t1", "t2"}


@asynccontextmanager
async def one_call_held(db_file: Path) -> AsyncIterator[tuple[Records, threading.Event]]:
    """The record, its one turn taken by a call that waits until the event is set."""
    with closing(Records(db_file, busy_timeout_s=WAIT_S)) as records:
        assert await records.open()
        release = threading.Event()
        with anyio.fail_after(30):  # a guard against a hang, not a measurement
            async with anyio.create_task_group() as tg:
                tg.start_soon(records.run, lambda store: release.wait())
                await anyio.wait_all_tasks_blocked()
                try:
                    yield records, release
                finally:
                    release.set()


async def test_the_next_call_starts_when_one_ends_not_when_the_loop_comes_back(
    db_file: Path,
) -> None:
    """The calls take their turn in their worker threads: with the event loop held (as a
    loop busy with other callers is), the call queued behind another still starts as soon
    as that one ends."""
    started = threading.Event()
    async with one_call_held(db_file) as (records, release), anyio.create_task_group() as tg:
        tg.start_soon(records.run, lambda store: started.set())
        await anyio.wait_all_tasks_blocked()
        assert not started.is_set()  # one at a time
        release.set()
        # the loop is held here: no await until the second has run
        assert started.wait(timeout=20), "the second call waited for the event loop"


async def test_a_call_past_its_deadline_before_its_turn_never_runs(db_file: Path) -> None:
    ran = threading.Event()
    async with one_call_held(db_file) as (records, release):
        with pytest.raises(PlatformError, match="did not answer within"):
            await records.run_within(0.01, lambda store: ran.set())
        release.set()
        assert await records.run(StrikeStore.schema_version)  # its turn is long past
        assert not ran.is_set()
