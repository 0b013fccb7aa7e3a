"""The strike record's PostgreSQL fails around a write: stopped, frozen or slow, before the
claim, during the claim, between the claim and the write, or after the write (before its
outcome is recorded). Twelve cases through the real gateway over MCP (the in-process fake
platform, whose validate or write waits at a gate the test opens once the fault is
applied), and one through the real Dev.to server and the sandbox.

In every case: at most one write (exactly one once it was sent), no answer after sending
says "nothing was written", each call answers by its configured deadline (a hang runs
into a generous limit, never reached otherwise), and once the database is back the
unsure write settles (a write that landed is recorded posted) and a second strike answers
duplicate, never a second write.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest
from fastmcp import Client, FastMCP

from gwanjong_gateway.config import parse
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.server import build_gateway
from gwanjong_gateway.status_report import STATUS_RECORD_S
from gwanjong_sandbox.control import SandboxControl
from tests.config import config_text
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import TWEETS
from tests.mcp import approves, call, until
from tests.postgres.outages.faults import Fault, Frozen, Slow, SlowProxy, Stopped

pytestmark = pytest.mark.anyio

CALL_TIMEOUT_S = 5.0
DEADLINE_S = 1.5
#: each chunk through the slow proxy: one round trip fits a deadline, a transaction does not
SLOW_CHUNK_S = 0.6
#: a hang runs into this; every answer comes long before it
HANG_S = 30.0
SENT_WORDING = ("nothing was written", "nothing is written")


def gateway_for(state: Path, fake: FakePlatform, url: str) -> FastMCP[Any]:
    store = {
        "url": url,
        "call_deadline_s": DEADLINE_S,
        "connect_timeout_s": 1,
        "statement_timeout_s": 1,
        "lock_timeout_s": 0.5,
        "pool_size": 4,
    }
    tables = {"safety": {"settle_window_s": 3}, "store": store}
    config = parse(
        config_text(state, ["twitter"], settings={"call_timeout_s": CALL_TIMEOUT_S}, tables=tables)
    )
    gw = Gateway(config, environ={}, transports={"twitter": fake.server()})
    return build_gateway(config, gateway=gw)


@asynccontextmanager
async def fault_of(kind: str, pg_url: str) -> AsyncIterator[tuple[Fault, str]]:
    """The fault and the URL the gateway uses (through the proxy for `slow`); the fault
    is always lifted after."""
    fault: Fault
    if kind == "slow":
        async with SlowProxy(pg_url).running() as proxy:
            fault = Slow(proxy, SLOW_CHUNK_S)
            try:
                yield fault, proxy.url
            finally:
                await fault.lift()
        return
    fault = Stopped(pg_url) if kind == "stopped" else Frozen()
    try:
        yield fault, pg_url
    finally:
        await fault.lift()


async def answer_of(
    client: Client[Any], tool: str, bound_s: float, **args: Any
) -> tuple[bool, str]:
    """(is_error, its text) of one call, which must answer by ``bound_s`` (plus the
    generous hang limit: a call that waits on the database without a deadline never
    answers while the fault is applied, so it runs into it)."""
    with anyio.fail_after(bound_s + HANG_S):
        started = time.monotonic()
        result = await client.call_tool(tool, args, raise_on_error=False)
    text = " ".join(getattr(c, "text", "") for c in result.content)
    print(f"{tool}: {time.monotonic() - started:.2f} s (bound {bound_s:g} s): {text[:160]}")
    return result.is_error, text


async def record_rows(pg_url: str) -> list[dict[str, Any]] | None:
    """The strike rows, read directly (None while the database does not answer)."""
    try:
        async with await psycopg.AsyncConnection.connect(pg_url, connect_timeout=2) as db:
            cur = await db.execute("SELECT id, status, result_id FROM strikes ORDER BY id")
            return [{"id": r[0], "status": r[1], "result_id": r[2]} for r in await cur.fetchall()]
    except psycopg.Error:
        return None


async def drafted(client: Client[Any]) -> str:
    scouted = await call(client, "scout", source="mentions")
    oid = str(scouted["opportunities"][0]["id"])
    await call(client, "draft", opportunity_id=oid)
    return oid


FAULTS = ("stopped", "frozen", "slow")
#: when the fault comes: before strike is called; while the platform's validate (the last
#: call before the claim) is answering, so it hits the claim itself; while the write is on
#: its way (claimed, not yet landed); once it landed, before the platform answers
MOMENTS = ("before_claim", "during_claim", "between_claim_and_write", "after_write")
#: where each moment holds the strike while the fault is applied
GATES = {
    "during_claim": ("validate", False),
    "between_claim_and_write": ("write_comment", False),
    "after_write": ("write_comment", True),
}


@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("kind", FAULTS)
async def test_a_failing_database_around_a_write(
    kind: str, moment: str, pg_url: str, tmp_path: Path
) -> None:
    fake = FakePlatform(TWEETS)
    comment = {"action": "comment", "content": "Guard each await with a deadline."}
    sent = moment in ("between_claim_and_write", "after_write")
    async with (
        fault_of(kind, pg_url) as (fault, url),
        Client(gateway_for(tmp_path / "state", fake, url)) as client,
    ):
        await call(client, "status")  # the pool is open
        oid = await drafted(client)
        args = {"opportunity_id": oid, **comment}
        if moment == "before_claim":
            await fault.apply()
            failed, text = await answer_of(client, "strike", CALL_TIMEOUT_S, **args)
        else:
            op, after = GATES[moment]
            gate = fake.gate(op, after=after)
            answers: list[tuple[bool, str]] = []

            async def strike() -> None:
                answers.append(await answer_of(client, "strike", CALL_TIMEOUT_S, **args))

            async with anyio.create_task_group() as tg:
                tg.start_soon(strike)
                with anyio.fail_after(HANG_S):
                    await gate.reached.wait()
                await fault.apply()
                gate.go.set()
            [(failed, text)] = answers
        assert failed and text.startswith("unavailable"), text
        if sent:
            assert len(fake.written("write_comment")) == 1
            assert "outcome is unknown" in text, text
            assert not any(w in text.lower() for w in SENT_WORDING), text
        else:
            assert fake.written() == []
            assert "was sent" not in text, text
            if kind != "stopped":  # by the configured deadline, which the answer names
                assert f"did not answer within {DEADLINE_S:g} s" in text, text
        # status answers by its own bound, saying the record is unavailable
        failed, text = await answer_of(client, "status", STATUS_RECORD_S + 2)
        assert not failed and "strike_record" in text, text
        if kind != "stopped":  # by its own bound, which it names
            assert f"did not answer within {STATUS_RECORD_S:g} s" in text, text
        # and scout by the record's deadline, still listing what it found
        failed, text = await answer_of(client, "scout", CALL_TIMEOUT_S, source="mentions")
        assert not failed and "opportunities" in text, text
        await fault.lift()

        async def settled() -> bool:
            rows = await record_rows(pg_url)
            return rows is not None and all(r["status"] not in ("pending", "unknown") for r in rows)

        if moment in ("after_write", "during_claim"):
            # at once: the retry reads an unsure write back (its call is over, so it is not
            # taken for a write still in flight), and a claim whose answer was lost (it may
            # commit after its call gave up) is known never sent: it frees the target
            again = await call(client, "strike", **args)
            assert again["status"] == ("duplicate" if sent else "posted"), again
        else:  # the settle loop settles it on its own
            await until(settled, HANG_S, every=0.2)
            again = None
        if again is None and not sent:  # now the strike goes through, once
            again = await call(client, "strike", **args)
            assert again["status"] == "posted", again
        rows = await record_rows(pg_url) or []
        [written] = fake.written("write_comment")
        # the write is recorded as posted, with its platform id; a claim that may have
        # committed after its call gave up is failed (never sent)
        assert [r["status"] for r in rows[:-1]] == ["failed"] * (len(rows) - 1), rows
        assert (rows[-1]["status"], rows[-1]["result_id"]) == ("posted", written.data["id"]), rows
        if sent:
            assert len(rows) == 1, rows
        again = await call(client, "strike", **args)
        assert again["status"] == "duplicate", again
        assert again["earlier"]["status"] == "posted", again
    assert len(fake.written("write_comment")) == 1


async def test_after_a_restart_the_first_calls_answer_on_fresh_connections(
    pg_url: str, tmp_path: Path
) -> None:
    """Every idle connection of the pool died with the server: none is used again, so no
    call fails on one once the database is back (each would answer "unreachable")."""
    from gwanjong_gateway.config import StoreSection
    from gwanjong_gateway.record.records import Records
    from gwanjong_gateway.record.store import StrikeStore

    records = Records(tmp_path / "unused.db", url=pg_url, store=StoreSection(url=pg_url))
    try:

        def hold(store: StrikeStore) -> None:
            store.engine.x("SELECT pg_sleep(0.3)")  # pyright: ignore[reportPrivateUsage]

        async with anyio.create_task_group() as tg:  # four connections in the pool
            for _ in range(4):
                tg.start_soon(records.run, hold)
        assert len(records._free) == 4  # pyright: ignore[reportPrivateUsage]
        restart = Stopped(pg_url)
        try:
            await restart.apply()
        finally:
            await restart.lift()
        with anyio.fail_after(HANG_S):
            for _ in range(5):
                assert await records.run(StrikeStore.history) == []
    finally:
        records.close()


async def test_a_database_stopped_after_a_devto_post_landed(
    sandbox: SandboxControl, pg_url: str, tmp_path: Path
) -> None:
    """The real Dev.to server over HTTP to the sandbox: the post lands (the sandbox's write
    log has it) and the database stops before the gateway records it. The answer says the
    outcome is unknown; once the database is back the retry answers duplicate of a posted
    record, and the sandbox's log still holds exactly one write."""
    from tests.e2e.strikes import scout_draft
    from tests.platforms import SPECS

    post = {
        "action": "post",
        "title": "Once only",
        "content": "Exactly once, whatever the database does.",
    }
    store = {"url": pg_url, "call_deadline_s": DEADLINE_S, "connect_timeout_s": 1}
    stopped = Stopped(pg_url)
    try:
        config = parse(config_text(tmp_path / "state", ["devto"], tables={"store": store}))
        # the server waits past the sandbox's 5 s (the gateway's call_timeout_s is 8)
        devto = SPECS["devto"].build(sandbox.url, DEVTO_TIMEOUT_S="30")
        gateway = build_gateway(config, environ={}, transports={"devto": devto})
        async with Client(gateway, elicitation_handler=approves) as client:  # a person
            oid = await scout_draft(client, "devto", "rust async", "Rust async")
            # the article is written at once; the sandbox answers 5 s later
            sandbox.fault("devto", kind="hang_after", seconds=5, match="/api/articles")
            answers: list[tuple[bool, str]] = []

            async def strike() -> None:
                answers.append(await answer_of(client, "strike", 8, opportunity_id=oid, **post))

            async def landed() -> bool:
                return len(await anyio.to_thread.run_sync(sandbox.writes, "devto")) == 1

            async with anyio.create_task_group() as tg:
                tg.start_soon(strike)
                await until(landed, HANG_S, every=0.2)  # in the sandbox's write log
                await stopped.apply()
            [(failed, text)] = answers
            assert failed and "outcome is unknown" in text, text
            assert not any(w in text.lower() for w in SENT_WORDING), text
            await stopped.lift()
            again = await call(client, "strike", opportunity_id=oid, **post)
            assert again["status"] == "duplicate", again
            assert again["earlier"]["status"] == "posted", again
    finally:
        await stopped.lift()
    [written] = sandbox.writes("devto")
    rows = await record_rows(pg_url)
    assert [r["status"] for r in rows or []] == ["posted"], rows
    assert written["data"].get("id") is None or str(written["data"]["id"]) == rows[0]["result_id"]  # type: ignore[index]
