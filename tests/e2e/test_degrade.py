"""The circuit breaker over real stdio processes: a server that cannot import, one that
hangs at start, one whose calls hang, and one that dies mid-call (one that dies idle: tests/e2e/test_chain.py)."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from gwanjong_gateway.config.file import render
from gwanjong_sandbox.control import SandboxControl
from tests.e2e.procs import alive, find
from tests.e2e.strikes import live_config
from tests.e2e.test_chain import gateway, gateway_pid
from tests.gateway.helpers import config_file
from tests.mcp import call, until, until_up
from tests.platforms import SPECS

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.stdio]
PY = sys.executable


async def test_a_server_that_cannot_start_and_one_hung_at_start(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    others = {
        "broken": {"command": [PY, "-m", "gwanjong_nosuch"]},
        "stuck": {"command": [PY, "-c", "import time; time.sleep(600)"]},
    }
    settings = {"call_timeout_s": 10, "start_timeout_s": 12}
    config = config_file(tmp_path, ["devto"], settings=settings, others=others, sandbox=sandbox.url)
    async with Client(gateway(config), timeout=90) as client:
        started = time.monotonic()
        first = await call(client, "scout", topic="rust")
        # Bounded by the timeouts, never by the stuck server's 600 s. The bound is loose on
        # purpose: a loaded machine may be slow, but never ten times the stuck server's wait.
        assert time.monotonic() - started < 60
        # The first call waits its call time, not the start time, then says so.
        assert {o["platform"] for o in first["opportunities"]} == {"devto"}
        assert "No module named gwanjong_nosuch" in first["errors"]["broken"]
        assert "stuck" in first["errors"]
        status = await call(client, "status")
        row = status["platforms"]["broken"]
        assert row["health"] == "down" and "No module named gwanjong_nosuch" in row["reason"]
        assert row["next_try_in_s"] >= 0
        assert (tmp_path / "state" / "logs" / "broken.log").exists()

        async def stuck_is_down() -> bool:
            status = await call(client, "status")
            return bool(status["platforms"]["stuck"]["health"] == "down")

        await until(stuck_is_down, 60, every=0.2)
        status = await call(client, "status")
        assert "did not start within 12 s" in status["platforms"]["stuck"]["reason"]
        again = await call(client, "scout", topic="rust")
        assert "unavailable: stuck is down (did not start within 12 s" in again["errors"]["stuck"]
        assert "next try in" in again["errors"]["stuck"]
        assert {o["platform"] for o in again["opportunities"]} == {"devto"}


async def test_hung_calls_open_the_breaker_then_it_recovers(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    # The server waits for its platform longer than the gateway waits for the server:
    # to the gateway, the server hangs.
    config = tmp_path / "gateway.toml"
    env = {**SPECS["devto"].env(sandbox.url), "DEVTO_TIMEOUT_S": "120"}
    gateway_table = {"state_dir": tmp_path / "state", "call_timeout_s": 3}
    config.write_text(
        render(gateway_table, {"devto": {"env": env, "isolation": "process"}}), encoding="utf-8"
    )
    async with Client(gateway(config), timeout=90) as client:
        await until_up(client, ["devto"])
        gw = gateway_pid()
        [before] = find(gw, "gwanjong_devto")
        sandbox.fault("devto", kind="hang", seconds=60, count=100)
        hung = await call(client, "scout", topic="rust", platforms=["devto"])
        assert "did not answer" in hung["errors"]["devto"]
        fast = await call(client, "scout", topic="rust", platforms=["devto"])
        assert "unavailable: devto is down (hung: no answer to" in fast["errors"]["devto"]
        await until(lambda: not alive(before), 30)  # the hung process was stopped

        sandbox.clear_faults()

        async def recovered() -> bool:
            scouted = await call(client, "scout", topic="rust", platforms=["devto"])
            return bool(scouted["opportunities"]) and "devto" not in scouted["errors"]

        await until(recovered, 90, every=0.5)  # restarted in the background after the backoff
        status = await call(client, "status")
        assert status["platforms"]["devto"]["health"] == "up"


async def test_a_server_that_dies_mid_call_is_back_for_the_next_call(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    config = live_config(
        tmp_path,
        sandbox,
        ["devto"],
        settings={"call_timeout_s": 20},
        platform={"min_interval_s": 0, "isolation": "process"},
    )
    async with Client(gateway(config), timeout=90) as client:
        await call(client, "scout", topic="rust")
        gw = gateway_pid()
        [pid] = find(gw, "gwanjong_devto")
        # One request hangs: the one seen before the kill. (Two let a scout whose second
        # request came after the kill hang its resent read past its 20 s: seen once in CI.)
        sandbox.fault("devto", kind="hang", seconds=30, count=1)
        seen = sum(sandbox.requests().values())
        result: dict[str, Any] = {}

        async def scout() -> None:
            result.update(await call(client, "scout", topic="rust", platforms=["devto"]))

        async with anyio.create_task_group() as tg:
            tg.start_soon(scout)
            await until(lambda: sum(sandbox.requests().values()) > seen, 30)
            os.kill(pid, signal.SIGKILL)
        # The reads in flight are sent once more, to the restarted server, within their time.
        assert "devto" not in result["errors"] and result["opportunities"], result
        assert find(gw, "gwanjong_devto") != [pid]
        sandbox.clear_faults()
        again = await call(client, "scout", topic="rust", platforms=["devto"])
        assert "devto" not in again["errors"] and again["opportunities"]
        assert find(gw, "gwanjong_devto") != [pid]
