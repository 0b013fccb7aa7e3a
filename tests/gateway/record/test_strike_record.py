"""The strike record under trouble: locked by another process, corrupt at start, and an
unexpected exception inside strike. Each answer is kind-prefixed; nothing is written
unrecorded. The platform is a fake in memory (tests/fakes); the record's clock is injected."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client, FastMCP

from gwanjong_gateway.config import parse
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_gateway.server import build_gateway
from gwanjong_shared.contract.errors import ErrorKind
from gwanjong_shared.kit.once import HOLD_S
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import SOCIAL
from tests.gateway.helpers import config_text, exit_code, gateway_of, patient_gateway
from tests.gateway.rows import history
from tests.gateway.strike.test_strike import drafted, strike
from tests.mcp import call, error_of

pytestmark = pytest.mark.anyio


def gateway_over(
    forum: FakePlatform,
    tmp_path: Path,
    safety: dict[str, Any] | None = None,
    clock: FakeClock | None = None,
) -> FastMCP[Any]:
    tables = {"safety": safety} if safety is not None else None
    wall = None if clock is None else clock.time  # the record's; ``clock``: the read-back's
    _gw, mcp = gateway_of(tmp_path, forum, clock=clock, wall=wall, tables=tables)
    return mcp


async def test_a_locked_record_answers_busy_and_writes_nothing(
    forum: FakePlatform, tmp_path: Path
) -> None:
    async with Client(gateway_over(forum, tmp_path)) as client:
        oid = await drafted(client)
        holder = sqlite3.connect(tmp_path / "gwanjong.db", isolation_level=None)
        try:
            holder.execute("BEGIN IMMEDIATE")  # what another gwanjong process's claim holds
            status = await call(client, "status")
            assert "strike_record" not in status and status["unsettled_writes"] == 0
            busy = (await strike(client, oid))["error"]
            assert busy == (
                "unavailable: the strike record is busy (locked by another gwanjong process); "
                "try again in 2 s."
            )
            assert forum.writes == []
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert (await strike(client, oid))["status"] == "posted"
    assert len(forum.writes) == 1


async def test_a_corrupt_record_leaves_the_gateway_up_and_refuses_writes(
    forum: FakePlatform, tmp_path: Path
) -> None:
    db = tmp_path / "gwanjong.db"
    db.write_bytes(b"this is not a database, it is a shopping list\n" * 200)
    async with Client(gateway_over(forum, tmp_path)) as client:
        oid = await drafted(client)  # scout and draft work without the record
        status = await call(client, "status")
        assert str(db) in status["strike_record"]
        assert "gwanjong doctor --repair" in status["strike_record"]  # never "move it aside"
        assert "mv " not in status["strike_record"]
        text = await error_of(
            client, "strike", opportunity_id=oid, action="post", content="Hello.", title="Hi"
        )
        assert text.startswith(f"unavailable: the strike record {db} cannot be read"), text
        assert "gwanjong doctor --repair" in text and "mv " not in text
    assert forum.writes == []
    assert db.read_bytes().startswith(b"this is not a database")  # left for the person


def broken_validate(real: FastMCP[Any]) -> FastMCP[Any]:
    """A real platform server, except that `validate` answers with a malformed shape."""
    outer: FastMCP[Any] = FastMCP("devto")
    outer.mount(real)

    @outer.tool(name="validate")
    def validate(
        action: str, body: str, title: str = "", post_id: str | None = None
    ) -> dict[str, Any]:
        return {"ok": True, "allowed": "auto", "problems": [], "length": "not a mapping"}

    return outer


async def test_a_malformed_platform_answer_in_strike_is_kind_prefixed(
    forum: FakePlatform, tmp_path: Path
) -> None:
    config = parse(config_text(tmp_path, ["devto"]))
    transports = {"devto": broken_validate(forum.server())}
    async with Client(
        build_gateway(config, gateway=patient_gateway(config, {}, transports))
    ) as client:
        oid = await drafted(client)
        text = await error_of(
            client, "strike", opportunity_id=oid, action="post", content="Hello.", title="Hi"
        )
        # The typed client refuses an answer outside the contract: a kind, never a traceback.
        assert text.startswith("unavailable: Could not check the platform's rules"), text
        assert "outside the platform contract" in text, text
        assert "Error calling tool" not in text
    assert forum.writes == []


async def test_absence_counts_only_after_the_settle_window(
    forum: FakePlatform, tmp_path: Path, clock: FakeClock
) -> None:
    # A 500 may hide a write that landed: unknown, held, and freed only when reading back
    # still finds nothing once the window has passed (the platform server's own hold, too).
    gw = gateway_over(forum, tmp_path, {"settle_window_s": HOLD_S}, clock=clock)
    async with Client(gw) as client:
        oid = await drafted(client)
        forum.fail("write_post", ErrorKind.UNAVAILABLE)
        first = await strike(client, oid)
        assert first["error"].startswith("unavailable")
        assert "may already be written" in first["error"]
        held = await strike(client, oid)
        assert held["status"] == "duplicate" and "may already be written" in held["reason"], held
        assert held["earlier"]["status"] == "unknown"
        # Inside the window the write stays held however often it is asked for again.
        clock.advance(2)
        assert (await strike(client, oid))["status"] == "duplicate"
        again = held
        for _ in range(30):  # past the window (and the call timeout): read back, freed
            clock.advance(5)
            again = await strike(client, oid)
            if again["status"] != "duplicate":
                break
        assert again["status"] == "posted", again
    assert len(forum.writes) == 1
    rows = history(tmp_path)
    assert [r.status for r in rows] == [StrikeStatus.POSTED, StrikeStatus.FAILED]
    assert "absent after the settle window" in rows[1].policy[-1]


async def test_what_cannot_be_read_back_waits_for_a_person_who_resolves_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], clock: FakeClock
) -> None:
    # A like cannot be read back through the contract: once its settle window has passed,
    # the record says (a typed field, not words in its reason) that only a person can
    # settle it, and a second strike says so instead of "checking again in N s"; the
    # person settles it with `gwanjong history --resolve`, once.
    social = FakePlatform(SOCIAL)
    tables = {"safety": {"settle_window_s": 3}}
    _gw, mcp = gateway_of(tmp_path, social, clock=clock, wall=clock.time, tables=tables)
    async with Client(mcp) as client:
        scouted = await call(client, "scout", topic="rust", limit=5)
        oid = scouted["opportunities"][0]["id"]
        await call(client, "draft", opportunity_id=oid)
        social.fail("upvote", ErrorKind.TIMEOUT)
        first = await error_of(client, "strike", opportunity_id=oid, action="upvote")
        assert "may already be written" in first, first
        held = await call(client, "strike", opportunity_id=oid, action="upvote")
        assert held["status"] == "duplicate" and "checking again in" in held["reason"], held
        clock.advance(60)  # past the window and the call timeout
        again = await call(client, "strike", opportunity_id=oid, action="upvote")
        assert again["status"] == "duplicate", again
        assert "A person must check the platform" in again["reason"], again
    [row] = history(tmp_path)
    assert row.status == StrikeStatus.UNKNOWN and row.needs_person, row
    assert social.writes == []  # the timed-out like never landed, and none was sent again
    cfg = tmp_path / "gateway.toml"
    cfg.write_text(config_text(tmp_path, []), encoding="utf-8")
    base = ["--config", str(cfg), "history", "--resolve", str(row.id), "--as"]
    assert exit_code([*base, "failed"]) == 0
    assert f"record {row.id}: failed" in capsys.readouterr().out
    assert exit_code([*base, "posted"]) == 2  # settled already
    assert "not unknown or pending" in capsys.readouterr().err
    [after] = history(tmp_path)
    assert after.status == StrikeStatus.FAILED
    assert "resolved by a person as failed" in after.policy[-1]


async def test_a_write_that_shows_late_settles_as_posted(
    forum: FakePlatform, tmp_path: Path, clock: FakeClock
) -> None:
    # The write lands, the answer is lost, and reads do not show it yet: held as unknown
    # (never sent twice) until reading back finds it.
    gw = gateway_over(forum, tmp_path, {"settle_window_s": 600}, clock=clock)
    async with Client(gw) as client:
        oid = await drafted(client)
        forum.lag = True
        forum.land("write_post", ErrorKind.TIMEOUT)
        first = await strike(client, oid)
        assert "may already be written" in str(first), first
        clock.advance(60)
        held = await strike(client, oid)
        assert held["status"] == "duplicate" and held["earlier"]["status"] == "unknown", held
        forum.show_late()
        for _ in range(30):
            clock.advance(60)
            held = await strike(client, oid)
            if held["earlier"]["status"] != "unknown":
                break
        assert held["status"] == "duplicate" and held["earlier"]["status"] == "posted", held
    assert len(forum.writes) == 1
    [row] = history(tmp_path)
    assert row.status == StrikeStatus.POSTED and "read-back: found on the platform" in row.policy


async def test_a_record_that_fails_after_sending_answers_outcome_unknown(
    forum: FakePlatform, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The write went out; recording its result fails (disk full): the answer must not
    # say "nothing was written", and the claim still keeps it from going out twice.
    real_update = StrikeStore.update

    def full_disk(self: StrikeStore, strike_id: int, **fields: Any) -> Any:
        if fields.get("status") == StrikeStatus.POSTED:
            raise sqlite3.OperationalError("database or disk is full")
        return real_update(self, strike_id, **fields)

    monkeypatch.setattr(StrikeStore, "update", full_disk)
    async with Client(gateway_over(forum, tmp_path)) as client:
        oid = await drafted(client)
        first = await strike(client, oid)
        text = first["error"]
        assert text.startswith("unavailable") and "outcome is unknown" in text, first
        assert "will not send it again" in text and "othing" not in text, first
        again = await strike(client, oid)
        assert again["status"] == "duplicate" and "may already be written" in again["reason"]
    assert len(forum.writes) == 1
    [row] = history(tmp_path)
    assert row.status == StrikeStatus.PENDING  # read back and settled once the record answers


async def test_a_full_disk_says_so_and_never_says_move_the_record_aside(tmp_path: Path) -> None:
    # Moving the record aside would drop its claims (a write could go out twice): a full
    # disk says to free space, and the record works again once a call succeeds.
    from gwanjong_gateway.record.records import Records
    from gwanjong_shared.contract.errors import PlatformError

    records = Records(tmp_path / "gwanjong.db")

    def full(store: StrikeStore) -> None:
        exc = sqlite3.OperationalError("database or disk is full")
        exc.sqlite_errorcode = sqlite3.SQLITE_FULL  # as SQLite sets it
        raise exc

    with pytest.raises(PlatformError) as answer:
        await records.run(full)
    text = str(answer.value)
    assert text.startswith("unavailable") and "the disk is full" in text, text
    assert "Free space" in text and "mv " not in text and "move it aside" not in text, text
    assert records.broken == ""
    assert await records.run(StrikeStore.history) == []
    records.close()
