"""A full disk, for real: the state_dir is a small tmpfs the test fills (tests run as root;
where mounting is not allowed the tests skip, saying why).

Before a write: strike answers `unavailable`, says the disk is full and that nothing was
sent; the platform sees no write. During a write (the disk fills while the platform call
is out): exactly one write, and the answer says the outcome is unknown and that it will
not be sent again, never that nothing was written; once space is freed, the same strike
answers duplicate (read back: posted), a restart does not offer the target again, nor does
following the answer's advice (`gwanjong doctor --repair`). A `.env` save on a full disk
answers `unavailable` saying so, and the old file is intact."""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_gateway.record.sql.engine import SqliteEngine
from gwanjong_gateway.record.sql.sqlite_errors import Trouble, trouble
from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_gateway.setup.dotenv_file import DotenvUnwritable, save
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import LINKS
from tests.gateway.helpers import config_text
from tests.gateway.record.test_journal import (
    REPLY,
    TITLE,
    drafted,
    named,
    offered,
    scout,
    strike_while_held,
    until_posted,
)
from tests.gateway.record.test_read_only_state import tmpfs
from tests.gateway.rows import history
from tests.gateway.strike.test_strike import strike
from tests.mcp import call, error_of, until

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]  # mounts a tmpfs (a process)
FILLER = "filler"
NOT_WRITTEN = ("nothing was written", "nothing is written", "nothing was sent")


@pytest.fixture
def state(tmp_path: Path) -> Iterator[Path]:
    yield from tmpfs(tmp_path, "4m", "cannot mount a small tmpfs to fill (needs root)")


def fill(where: Path) -> Path:
    """Fill the disk to the last byte; the filler file (delete it to free the space)."""
    filler = where / FILLER
    with filler.open("ab", buffering=0) as f:
        for size in (1 << 16, 4096, 1):
            while True:
                try:
                    f.write(b"\0" * size)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc
                    break
    with pytest.raises(OSError):  # really full, even for root
        (where / "probe").write_bytes(b"x" * 4096)
    return filler


async def drafted_and_logged(client: Client[Any], state: Path) -> str:
    """`drafted`, once the usage log has written its calls. Were its first write to meet
    the full disk, it would close its new database and free its files' room, where the
    record's next write would then fit (a race the test lost under load)."""
    oid = await drafted(client)
    await until(lambda: logged(state) > 0, 30, every=0.01)
    return oid


def logged(state: Path) -> int:
    """How many calls usage.db holds (0 before it exists)."""
    try:
        with closing(sqlite3.connect(f"file:{state / 'usage.db'}?mode=ro", uri=True)) as db:
            return int(db.execute("SELECT COUNT(*) FROM calls").fetchone()[0])
    except sqlite3.Error:
        return 0


def no_claim_of_nothing(text: str) -> None:
    low = text.lower()
    assert not any(n in low for n in NOT_WRITTEN), text


def filled(state: Path) -> Callable[[], Awaitable[None]]:
    """The fault for `strike_while_held`: the claim and the journal line are in, then the
    disk is full."""

    async def fill_it() -> None:
        fill(state)

    return fill_it


async def test_a_full_disk_before_a_write_sends_nothing(state: Path) -> None:
    links = FakePlatform(LINKS)
    async with Client(fake_gateway(state, links)) as client:
        oid = await drafted_and_logged(client, state)
        fill(state)
        answer = await strike(client, oid, "comment", REPLY)
        text = answer.get("error", "")
        assert text.startswith("unavailable:") and "is full" in text, answer
        assert "gwanjong doctor --repair" in text and "mv " not in text, answer
    assert links.written() == []


async def test_a_full_disk_during_a_write_writes_once_and_says_unknown(state: Path) -> None:
    links = FakePlatform(LINKS)
    links.hang("write_comment")  # the write waits until the test releases it
    async with Client(fake_gateway(state, links)) as client:
        oid = await drafted_and_logged(client, state)
        first = await strike_while_held(client, links, oid, filled(state))
        text = first.get("error", "")
        assert "outcome is unknown" in text and "will not send it again" in text, first
        no_claim_of_nothing(text)
        (state / FILLER).unlink()  # space again: the same strike is held (read back: posted)
        again = await strike(client, oid, "comment", REPLY)
        assert again["status"] == "duplicate", again
        no_claim_of_nothing(str(again))
    assert len(links.written("write_comment")) == 1
    async with Client(fake_gateway(state, links)) as client:  # a restart: replay, settle
        assert not any(TITLE.lower() in t.lower() for t in offered(await scout(client)))
        row = await until_posted(state)
    assert row.result_id == links.written("write_comment")[0].data["id"], row
    assert len(links.written("write_comment")) == 1


async def test_following_the_advice_on_a_full_disk_never_offers_the_target_again(
    state: Path,
) -> None:
    links = FakePlatform(LINKS)
    links.hang("write_comment")
    async with Client(fake_gateway(state, links)) as client:
        oid = await drafted_and_logged(client, state)
        first = await strike_while_held(client, links, oid, filled(state))
        assert "outcome is unknown" in first.get("error", ""), first
        await call(client, "status")
    # The advice: `gwanjong doctor --repair` (the gateway stopped). On the full disk it
    # exports elsewhere first and changes nothing; once space is freed it succeeds.
    cfg = state.parent / "gateway.toml"
    cfg.write_text(config_text(state, ["reddit"]))
    home = state.parent / "home"
    home.mkdir()
    done = doctor(cfg, home)
    assert done.returncode == 1 and "is full" in done.stderr, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr  # a one-line reason
    [export] = named(home, "gwanjong-export-")
    assert '"pending"' in export.read_text() or '"unknown"' in export.read_text()
    (state / FILLER).unlink()
    done = doctor(cfg, home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "exported" in done.stdout, done.stdout
    async with Client(fake_gateway(state, links)) as client:
        assert not any(TITLE.lower() in t.lower() for t in offered(await scout(client)))
    rows = [r for r in history(state) if r.action == "comment"]
    assert len(rows) == 1 and rows[0].status in (StrikeStatus.POSTED, StrikeStatus.UNKNOWN), rows
    assert len(links.written("write_comment")) == 1


def doctor(cfg: Path, home: Path) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "gwanjong_gateway", "doctor", "--repair", "--config", str(cfg)]
    env = {**os.environ, "HOME": str(home)}
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)


async def test_a_dotenv_save_on_a_full_disk_says_so_and_keeps_the_old_file(state: Path) -> None:
    """The writer itself, and setup(save) over MCP answering `unavailable`."""
    env = state / ".env"
    save(env, {"REDDIT_CLIENT_ID": "old-id"})
    before = env.read_bytes()
    links = FakePlatform(LINKS, configured=False)
    gateway = fake_gateway(state, links, settings={"model_may_save_credentials": True})
    async with Client(gateway) as client:
        await client.call_tool("status", {})
        fill(state)
        with pytest.raises(DotenvUnwritable) as caught:
            save(env, {"REDDIT_CLIENT_ID": "new-id", "REDDIT_CLIENT_SECRET": "s" * 3000})
        keys = {"REDDIT_CLIENT_ID": "id", "REDDIT_CLIENT_SECRET": "x" * 40}
        text = await error_of(client, "setup", action="save", platform="reddit", credentials=keys)
    assert "is full" in str(caught.value) and "unchanged" in str(caught.value)
    assert "s" * 20 not in str(caught.value)  # never the secret
    assert text.startswith("unavailable:") and "is full" in text, text
    assert "unexpectedly" not in text and "x" * 40 not in text, text
    assert env.read_bytes() == before
    assert named(state, ".env.") == []  # no temp file left behind


async def test_a_record_lost_after_a_full_disk_write_is_rebuilt_from_the_journal(
    state: Path,
) -> None:
    """The old advice (move gwanjong.db aside), followed anyway: the journal still holds
    the write, so the new record holds its target and scout does not offer it again."""
    links = FakePlatform(LINKS)
    links.hang("write_comment")
    async with Client(fake_gateway(state, links)) as client:
        oid = await drafted_and_logged(client, state)
        first = await strike_while_held(client, links, oid, filled(state))
        assert "outcome is unknown" in first.get("error", ""), first
    (state / FILLER).unlink()
    for name in ("gwanjong.db", "gwanjong.db-wal", "gwanjong.db-shm"):
        if (state / name).exists():
            (state / name).rename(state / f"{name}.aside")
    async with Client(fake_gateway(state, links)) as client:
        assert not any(TITLE.lower() in t.lower() for t in offered(await scout(client)))
        row = await until_posted(state)
    assert "journal" in " ".join(map(str, row.policy)), row
    assert len(links.written("write_comment")) == 1


def test_a_transaction_the_full_disk_rolled_back_says_full(state: Path) -> None:
    # A statement that spills past SQLite's cache onto a full disk rolls the transaction
    # back itself (a big migration step, say); our ROLLBACK after it said "cannot rollback
    # - no transaction is active", read as a damaged record (doctor: rebuild it).
    engine = SqliteEngine(state / "gwanjong.db")
    engine.x("CREATE TABLE t (v TEXT)")
    fill(state)
    with pytest.raises(sqlite3.OperationalError) as failed, engine.transaction(immediate=True):
        engine.x("INSERT INTO t VALUES (?)", ("x" * 3_000_000,))
    engine.close()
    assert trouble(failed.value) is Trouble.FULL, failed.value
