"""The full chain as a user's MCP client drives it: client -> gateway process (stdio) ->
each platform server (in the gateway's interpreter by default, or its own stdio process with
isolation = "process") -> sandbox (HTTP)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp.types import ElicitResult

from gwanjong_sandbox.control import SandboxControl
from gwanjong_twitter.weighted import weighted_length
from tests.e2e.procs import alive, descendants, find
from tests.e2e.strikes import live_config, scout_draft, server_timeout, strike
from tests.gateway.http_gateway import cli
from tests.mcp import approves, call, until, until_up
from tests.platforms import SPECS

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
PY = sys.executable


def gateway(config: Path, log_level: str = "", log: Path | None = None) -> StdioTransport:
    """`gwanjong --config config` over stdio; ``log_level`` its own and FastMCP's (else
    FastMCP's WARNING), its stderr to ``log`` if given."""
    args = ["-m", "gwanjong_gateway", "--config", str(config)]
    args += ["--log-level", log_level] if log_level else []
    env = {"FASTMCP_LOG_LEVEL": log_level or "WARNING"}
    return StdioTransport(command=PY, args=args, env=env, log_file=log)


def gateway_pid() -> int:
    pids = find(os.getpid(), "gwanjong_gateway")
    assert len(pids) == 1, pids
    return pids[0]


ALL = sorted(SPECS)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_three_calls_through_the_whole_chain(
    sandbox: SandboxControl, tmp_path: Path, mode: str
) -> None:
    config = live_config(tmp_path, sandbox, ALL)
    asked: list[str] = []

    async def person(message: str, response_type: Any, params: Any, ctx: Any) -> ElicitResult:
        # live mode, yet a Dev.to article waits for a person: nothing has reached DEV yet
        asked.append(message)
        assert sandbox.writes() == [], sandbox.writes()
        return ElicitResult(action="accept", content={"decision": "approve"})

    async with Client(gateway(config), mode=mode, timeout=60, elicitation_handler=person) as client:
        early = await client.call_tool(
            "draft", {"opportunity_id": "devto-000000"}, raise_on_error=False
        )
        assert early.is_error and "Call `scout` first" in early.content[0].text  # type: ignore[union-attr]
        # An order hint is its own kind, as data: not an outage.
        assert (early.structured_content or {})["error"]["kind"] == "needs_previous_step"
        args = {"opportunity_id": "x", "action": "comment", "content": "hi"}
        early = await client.call_tool("strike", args, raise_on_error=False)
        assert early.is_error and "then `draft` it" in early.content[0].text  # type: ignore[union-attr]
        assert {t.name for t in await client.list_tools()} == {
            "scout",
            "draft",
            "strike",
            "status",
            "setup",
        }
        await until_up(client, ALL)
        scouted = await call(client, "scout", topic="rust async cancellation", limit=10)
        assert scouted["errors"] == {}
        platforms = {o["platform"] for o in scouted["opportunities"]}
        assert platforms == set(ALL)
        # Every platform has the same Rust thread; URLs differ, so it appears once per platform.
        rust = [o for o in scouted["opportunities"] if "Rust async" in o["title"]]
        assert len(rust) == len(ALL) and all(
            o["score"] >= max(x["score"] for x in scouted["opportunities"]) * 0.5 for o in rust
        )
        devto = next(o for o in rust if o["platform"] == "devto")
        drafted = await call(client, "draft", opportunity_id=devto["id"])
        assert "select!" in drafted["post"]
        post = {"opportunity_id": devto["id"], "action": "post", "title": "Guards for cancellation"}
        assert drafted["strike"]["actions"]["post"]["allowed"] == "approved", drafted["strike"]
        for expected in ("posted", "duplicate"):  # the same post again is held, never resent
            struck = await call(client, "strike", **post, content="Wrap every await.")
            assert struck["status"] == expected
    assert len(asked) == 1 and "Wrap every await." in asked[0], asked  # asked once, then sent
    assert [w["action"] for w in sandbox.writes()] == ["write_post"]


async def test_a_weighted_footer_is_counted_by_the_platform(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    """X counts its own weighted length (a URL as 23, emoji and CJK as 2): the footer's
    share of the limit draft shows is the X server's count, not a gateway estimate."""
    footer = "\n\u2014 drafted with https://example.com/gwanjong/about?from=x \U0001f916"
    config = live_config(tmp_path, sandbox, ["twitter"], others={"twitter": {"disclosure": footer}})
    async with Client(gateway(config), timeout=60) as client:
        await until_up(client, ["twitter"])
        scouted = await call(client, "scout", topic="rust async cancellation", limit=5)
        assert scouted["opportunities"]
        first = scouted["opportunities"][0]["id"]
        drafted = (await client.call_tool("draft", {"opportunity_id": first})).structured_content
    assert drafted is not None and drafted["strike"]["disclosure_appended"] == footer
    counted = weighted_length(footer)
    assert counted != len(footer)  # the case where an estimate goes wrong
    comment = drafted["limits"]["comment"]
    assert comment["footer"] == counted and comment["max"] == 280 - counted


async def test_a_killed_server_is_respawned_by_the_next_call(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    platforms = ALL if len(ALL) > 1 else ["devto"]
    config = live_config(
        tmp_path, sandbox, platforms, platform={"min_interval_s": 0, "isolation": "process"}
    )
    victim = "devto"
    async with Client(gateway(config), timeout=60) as client:
        await until_up(client, platforms)
        gw = gateway_pid()
        [pid] = find(gw, f"gwanjong_{victim}")
        os.kill(pid, signal.SIGKILL)
        await until(lambda: not alive(pid))

        # The dead pipe is noticed before the next call, which restarts the server: it
        # answers from the new one, or (a cold start on a loaded machine outlasting the
        # call's wait) says it is still starting, and a later call gets the answer.
        async def respawned() -> bool:
            again = await call(client, "scout", topic="rust")
            if victim in again["errors"]:
                assert "is still starting" in again["errors"][victim], again
                return False
            return victim in {o["platform"] for o in again["opportunities"]}

        await until(respawned, seconds=300, every=0.5)
        [new_pid] = find(gw, f"gwanjong_{victim}")
        assert new_pid != pid
        status = await call(client, "status")
        assert status["platforms"][victim]["health"] == "up"


async def test_a_hanging_platform_gives_partial_results_in_time(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    if len(ALL) < 2:
        pytest.skip("needs two platforms")
    config = live_config(tmp_path, sandbox, ALL, settings={"call_timeout_s": 4})
    async with Client(gateway(config), timeout=60) as client:
        await until_up(client, ALL)
        sandbox.fault("devto", kind="hang", seconds=120, count=10)
        started = time.monotonic()
        scouted = await call(client, "scout", topic="rust")
        # Not held by the hang (120 s): the call timeout (4 s) ends it. Loose on purpose, so
        # that a loaded machine cannot fail it.
        assert time.monotonic() - started < 60
        assert "devto" in scouted["errors"]
        assert {o["platform"] for o in scouted["opportunities"]} == set(ALL) - {"devto"}


@pytest.mark.parametrize("how", ["eof", "sigterm"])
async def test_no_orphans_when_the_gateway_stops(
    sandbox: SandboxControl, tmp_path: Path, how: str
) -> None:
    # Platforms start on first use; an exposed tool makes its platform start with the gateway.
    exposed = [f"{name}__get_post" for name in ALL]
    config = live_config(
        tmp_path,
        sandbox,
        ALL,
        settings={"expose": exposed},
        platform={"min_interval_s": 0, "isolation": "process"},
    )
    proc = subprocess.Popen(
        [PY, "-m", "gwanjong_gateway", "--config", str(config)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        await until(lambda: len(find(proc.pid, "gwanjong_")) >= len(ALL), 30)
        children = descendants(proc.pid)
        assert children
        if how == "eof":
            assert proc.stdin is not None
            proc.stdin.close()
        else:
            proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
        await until(lambda: not any(alive(pid) for pid in children), 10)
    finally:
        if proc.poll() is None:
            proc.kill()


async def test_killed_between_intent_and_result_never_writes_twice(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    # The platform write happens, but its answer is held long enough to kill the gateway.
    config = live_config(
        tmp_path,
        sandbox,
        ["devto"],
        settings={"call_timeout_s": 30},
        others=server_timeout(sandbox, "devto", 60),
    )
    async with Client(gateway(config), timeout=60, elicitation_handler=approves) as client:
        oid = await scout_draft(client, "devto", "rust async", "Rust async")
        sandbox.fault("devto", kind="hang_after", seconds=30, count=1, match="/api/articles")
        gw = gateway_pid()
        async with anyio.create_task_group() as tg:

            async def doomed() -> None:
                with contextlib.suppress(Exception):  # the gateway dies under this call
                    await strike(client, oid, "post", "Exactly once.", "Once only")

            tg.start_soon(doomed)
            await until(lambda: len(sandbox.writes("devto")) == 1)
            os.kill(gw, signal.SIGKILL)
            await until(lambda: not alive(gw))
            tg.cancel_scope.cancel()
    assert len(sandbox.writes("devto")) == 1
    # A new gateway settles the record by reading back, and never writes again.
    async with Client(gateway(config), timeout=60) as client:
        oid = await scout_draft(client, "devto", "rust async", "Rust async")
        # Held as "may already be written" until reading back finds it (never re-sent).
        with anyio.fail_after(90):
            while True:
                again = await strike(client, oid, "post", "Exactly once.", "Once only")
                assert again.get("status") == "duplicate", again
                if again["earlier"]["status"] == "posted":
                    break
                assert "may already be written" in again["reason"], again
                await anyio.sleep(1)
    assert len(sandbox.writes("devto")) == 1
    history = cli(config, "history", "--json")
    assert history.returncode == 0, history.stderr
    assert '"status": "posted"' in history.stdout and "pending" not in history.stdout
