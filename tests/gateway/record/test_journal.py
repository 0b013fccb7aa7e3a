"""The write journal (fast tier, the fake platform): every send is noted, fsync'd, before it
goes out and closed once the record has its outcome; a journal that cannot be written
means nothing is sent; a write the record lost is put back into it (holding its target,
settled by reading back); `gwanjong doctor --repair` rebuilds a damaged record carrying
every claim and unsure write over, so scout never offers a written target again."""

from __future__ import annotations

import io
import json
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from gwanjong_gateway.cli.doctor.doctor_command import run_doctor
from gwanjong_gateway.config import parse
from gwanjong_gateway.record.journal import JOURNAL, Journal, restore
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus, content_hash, intent_key
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import LINKS
from tests.gateway import helpers
from tests.gateway.helpers import config_text
from tests.gateway.rows import claim_of, history, strike_row
from tests.gateway.strike.test_strike import strike
from tests.mcp import call, until

pytestmark = pytest.mark.anyio
TOPIC = "rust async cancellation"
TITLE = "Rust async"
REPLY = "Guard every await with a timeout and a cancel scope."


@pytest.fixture
def links() -> FakePlatform:
    return FakePlatform(LINKS)


def offered(scouted: dict[str, Any]) -> list[str]:
    return [o["title"] for o in scouted["opportunities"] if o["platform"] == "reddit"]


async def scout(client: Client[Any]) -> dict[str, Any]:
    return await call(client, "scout", topic=TOPIC, limit=10)


async def drafted(client: Client[Any]) -> str:
    return await helpers.drafted(client, TOPIC, TITLE, "reddit", limit=10)


async def strike_while_held(
    client: Client[Any], links: FakePlatform, oid: str, meanwhile: Callable[[], Awaitable[None]]
) -> dict[str, Any]:
    """Comment on ``oid`` while ``links`` holds the write (`links.hang("write_comment")`
    first): once the write is out, ``meanwhile`` (a fault) runs, then the write lands.
    The strike's answer."""
    answers: list[dict[str, Any]] = []

    async def write() -> None:
        answers.append(await strike(client, oid, "comment", REPLY))

    async with anyio.create_task_group() as tg:
        tg.start_soon(write)
        await until(lambda: "write_comment" in links.calls, 30, every=0.01)  # only a hang
        await meanwhile()
        links.release()
    [answer] = answers
    return answer


def lines(state: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (state / JOURNAL).read_text().splitlines()]


async def test_a_journal_that_cannot_be_written_means_nothing_is_sent(
    links: FakePlatform, tmp_path: Path
) -> None:
    (tmp_path / "journal.lock").mkdir()  # a real filesystem error on every append (EISDIR)
    async with Client(fake_gateway(tmp_path, links)) as client:
        oid = await drafted(client)
        answer = await strike(client, oid, "comment", REPLY)
    assert answer["error"].startswith("unavailable: Nothing was sent"), answer
    assert links.written() == []
    [row] = [r for r in history(tmp_path) if r.action == "comment"]
    assert row.status == StrikeStatus.FAILED  # the claim is released: nothing holds it


def sent_then_lost(state: Path, links: FakePlatform, now: float) -> int:
    """A claim, its journal line and the write itself; then the record is moved aside, as
    the old advice said to. The id the lost record gave it."""
    [target] = [pid for pid, p in links.posts.items() if TITLE.lower() in p.title.lower()][:1]
    store = StrikeStore(state / "gwanjong.db")
    row = strike_row(
        store,
        intent_key=intent_key("reddit", target, "comment", REPLY),
        platform="reddit",
        target=target,
        content_hash=content_hash(REPLY),
        content=REPLY,
        now=now,
    )
    Journal(state).append_sending(row)
    store.close()
    links.record("write_comment", target, body=REPLY, parent_id=None)  # it went out
    for name in ("gwanjong.db", "gwanjong.db-wal", "gwanjong.db-shm"):
        if (state / name).exists():
            (state / name).rename(state / f"{name}.aside")
    return row.id


async def until_posted(state: Path) -> Any:
    with anyio.fail_after(60):  # only catches a hang; the settle loop's first round is due at once
        while True:
            rows = [r for r in history(state) if r.action == "comment"]
            if rows and rows[0].status == StrikeStatus.POSTED:
                return rows[0]
            await anyio.sleep(0.05)


async def test_a_write_the_record_lost_is_held_again_and_settled(
    links: FakePlatform, tmp_path: Path
) -> None:
    sent_then_lost(tmp_path, links, time.time())
    async with Client(fake_gateway(tmp_path, links)) as client:
        scouted = await scout(client)
        assert not any(TITLE.lower() in t.lower() for t in offered(scouted)), scouted
        row = await until_posted(tmp_path)
    journalled = any("journal" in str(p) for p in row.policy)
    assert "restored from the write journal" in row.reason or journalled, row
    assert len(links.written("write_comment")) == 1
    assert len(Journal(tmp_path).open_entries()) == 1  # open until its row is settled
    async with Client(fake_gateway(tmp_path, links)) as client:
        await scout(client)  # the next start's replay finds it settled
    assert Journal(tmp_path).open_entries() == []
    assert (tmp_path / JOURNAL).read_text() == ""  # compacted away


async def test_a_strike_waits_for_the_replay_of_a_write_the_record_lost(
    links: FakePlatform, tmp_path: Path
) -> None:
    # The replay failed (here on a line a newer gwanjong wrote) and was only deferred: the
    # strike went on and wrote to the target a lost write still holds.
    sent_then_lost(tmp_path, links, time.time())
    newer = {**lines(tmp_path)[0], "id": 99, "action": "repost", "intent_key": "k9"}
    (tmp_path / JOURNAL).write_text(json.dumps(newer) + "\n" + (tmp_path / JOURNAL).read_text())
    async with Client(fake_gateway(tmp_path, links)) as client:
        answer = await strike(client, await drafted(client), "comment", REPLY)
    assert answer.get("status") != "posted", answer
    assert len(links.written("write_comment")) == 1


def named(folder: Path, prefix: str) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name.startswith(prefix))


def damage_an_index(db: Path) -> None:
    """Overwrite one index page: quick_check fails, the table itself still reads."""
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = con.execute("PRAGMA page_size").fetchone()[0]
    root = con.execute(
        "SELECT rootpage FROM sqlite_master WHERE name = 'strikes_intent'"
    ).fetchone()[0]
    con.close()
    with db.open("r+b") as f:
        f.seek((root - 1) * page)
        f.write(b"\xde\xad" * (page // 2))


async def test_every_send_is_journalled_and_doctor_repair_carries_every_claim_over(
    links: FakePlatform, tmp_path: Path
) -> None:
    async with Client(fake_gateway(tmp_path, links)) as client:
        oid = await drafted(client)
        answer = await strike(client, oid, "comment", REPLY)
    assert answer["status"] == "posted", answer
    # journalled first, closed once recorded
    events = lines(tmp_path)
    assert [e["event"] for e in events] == ["sending", "recorded"]
    assert events[0]["id"] == events[1]["id"] == answer["record"]
    assert events[0]["platform"] == "reddit" and events[0]["action"] == "comment"
    assert Journal(tmp_path).open_entries() == []
    assert (tmp_path / JOURNAL).stat().st_mode & 0o777 == 0o600
    # a damaged record: doctor --repair carries every claim over
    db = tmp_path / "gwanjong.db"
    damage_an_index(db)
    async with Client(fake_gateway(tmp_path, links)) as client:
        status = await call(client, "status")
        assert "gwanjong doctor --repair" in status["strike_record"], status
    config = parse(config_text(tmp_path, ["reddit"]))
    out, err = io.StringIO(), io.StringIO()
    assert run_doctor(config, None, fix=False, out=out, err=err) == 1
    assert "the record is damaged" in err.getvalue() and err.getvalue().count("\n") == 1
    assert "record     sqlite" in out.getvalue() and "reddit" in out.getvalue(), out.getvalue()
    assert run_doctor(config, None, fix=True, out=out, err=err) == 0, err.getvalue()
    said = out.getvalue()
    assert "rebuilt" in said and "1 records carried over" in said, said
    [broken] = named(tmp_path, "gwanjong.db.broken-")
    [export] = named(tmp_path, "gwanjong-export-")
    assert [r["status"] for r in json.loads(export.read_text())["strikes"]] == ["posted"]
    assert broken.exists() and db.exists()
    async with Client(fake_gateway(tmp_path, links)) as client:
        scouted = await scout(client)
        assert not any(TITLE.lower() in t.lower() for t in offered(scouted)), scouted
    assert [r.status for r in history(tmp_path)] == [StrikeStatus.POSTED]
    assert len(links.written("write_comment")) == 1


async def test_doctor_puts_a_journalled_write_back_into_a_new_record(
    links: FakePlatform, tmp_path: Path
) -> None:
    lost = sent_then_lost(tmp_path, links, time.time())
    config = parse(config_text(tmp_path, ["reddit"]))
    out, err = io.StringIO(), io.StringIO()
    assert run_doctor(config, None, fix=False, out=out, err=err) == 0
    assert "1 open entry" in out.getvalue(), out.getvalue()
    assert run_doctor(config, None, fix=True, out=out, err=err) == 0, err.getvalue()
    [row] = history(tmp_path)
    assert row.status == StrikeStatus.UNKNOWN and f"as record {lost}" in row.reason, row


def test_doctor_never_rebuilds_a_record_another_process_holds(tmp_path: Path) -> None:
    # A busy record read as damaged: --repair moved the live record aside, and the gateway
    # holding it went on claiming into the old file, which no one reads any more.
    store = StrikeStore(tmp_path / "gwanjong.db")
    strike_row(store, status=StrikeStatus.POSTED)
    config = parse(config_text(tmp_path, ["reddit"], tables={"store": {"lock_timeout_s": 0.1}}))
    store.engine.x("BEGIN IMMEDIATE")  # a gateway mid-claim
    out, err = io.StringIO(), io.StringIO()
    assert run_doctor(config, None, fix=False, out=out, err=err) == 1
    assert run_doctor(config, None, fix=True, out=out, err=err) == 1
    store.engine.x("ROLLBACK")
    store.close()
    assert "damaged" not in out.getvalue() + err.getvalue(), err.getvalue()
    assert "busy" in err.getvalue() and "stop" in err.getvalue(), err.getvalue()
    assert named(tmp_path, "gwanjong.db.broken-") == []
    assert [r.status for r in history(tmp_path)] == [StrikeStatus.POSTED]


def test_a_repair_a_crash_stopped_is_finished_not_started_empty(tmp_path: Path) -> None:
    # A crash between `doctor --repair` moving the damaged record aside and moving the
    # rebuilt one in left no record: the next start made an empty one, every claim forgotten.
    db, stamp = tmp_path / "gwanjong.db", "20261207T130000Z"
    store = StrikeStore(tmp_path / f"gwanjong.db.rebuild-{stamp}")
    strike_row(store, status=StrikeStatus.POSTED)
    store.close()
    (tmp_path / "gwanjong.db-wal").write_bytes(b"the damaged record's own log")
    assert [r.status for r in history(tmp_path)] == [StrikeStatus.POSTED]
    assert db.exists() and named(tmp_path, "gwanjong.db.rebuild-") == []
    aside = tmp_path / f"gwanjong.db.broken-{stamp}-wal"
    assert aside.read_bytes() == b"the damaged record's own log"


def test_the_journal_stays_short(tmp_path: Path) -> None:
    """Closed entries are compacted away once the file passes its bound; open ones stay."""
    store = StrikeStore(tmp_path / "gwanjong.db")
    journal = Journal(tmp_path, compact_bytes=4096)
    kept = None
    for n in range(200):
        row = strike_row(
            store, intent_key=f"k{n}", platform="reddit", target=f"t{n}", content="x" * 100
        )
        journal.append_sending(row)
        if n == 7:
            kept = row.id  # never recorded: stays open through every compaction
        else:
            journal.append_recorded(row.id)
    store.close()
    assert (tmp_path / JOURNAL).stat().st_size < 4096 + 1024
    assert [e.id for e in journal.open_entries()] == [kept]


def test_a_write_put_back_from_the_journal_keeps_the_strikes_trace(tmp_path: Path) -> None:
    """The settle span links to the strike that sent the write, and it is read back as the
    account it went out as, even when the record lost the row and the journal put it back."""
    lost = StrikeStore(tmp_path / "lost.db")
    row = strike_row(
        lost,
        platform="reddit",
        trace_id="4bf92f3577b34da6a3ce929d0e0e4736",
        span_id="00f067aa0ba902b7",
        account="gwanjong_bot",
    )
    lost.close()
    journal = Journal(tmp_path)
    journal.append_sending(row)
    fresh = StrikeStore(tmp_path / "gwanjong.db")
    [entry] = journal.open_entries()
    back = restore(fresh, entry, time.time())
    assert back is not None and back.status == StrikeStatus.UNKNOWN
    assert (back.trace_id, back.span_id, back.account) == (row.trace_id, row.span_id, row.account)
    fresh.close()


def test_a_line_torn_by_a_crash_never_swallows_the_next_write(tmp_path: Path) -> None:
    """A crash mid-append (or between a short write on a full disk and its truncation)
    leaves a line without its end: the next write's line starts on a line of its own."""
    store = StrikeStore(tmp_path / "gwanjong.db")
    torn, sent = (strike_row(store, intent_key=k, target=k) for k in ("k1", "k2"))
    store.close()
    journal = Journal(tmp_path)
    journal.append_sending(torn)
    (tmp_path / JOURNAL).write_text((tmp_path / JOURNAL).read_text()[:40])
    journal.append_sending(sent)
    assert [e.id for e in journal.open_entries()] == [sent.id]


def test_the_record_is_synced_as_the_journal_is(tmp_path: Path) -> None:
    """The journal's `recorded` line is fsynced, so the record's commit must be on disk too
    (synchronous=FULL, 2): NORMAL under WAL lets an OS crash take back the claim the journal
    no longer replays. Only rows no guarantee rests on commit unsynced (a dry run, scout's
    handles): the claim right after them is synced again."""
    store = StrikeStore(tmp_path / "gwanjong.db")
    assert store.engine.tuples("PRAGMA synchronous") == [(2,)]
    said: list[str] = []
    store.engine.db.set_trace_callback(said.append)
    dry = claim_of("t1").row | {"mode": "dry-run", "status": StrikeStatus.DRY_RUN}
    store.save_dry_run(**dry)
    store.add_handles([], now=1.0)
    store.decide(claim_of("t2"), now=2.0, insert=True)
    level, committed = "FULL", []
    for statement in said:
        level = (
            statement.removeprefix("PRAGMA synchronous=") if "synchronous=" in statement else level
        )
        committed += [level] if statement == "COMMIT" else []
    assert committed == ["NORMAL", "NORMAL", "FULL"]
    store.close()
