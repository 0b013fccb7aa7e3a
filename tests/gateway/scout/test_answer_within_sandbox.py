"""With every platform answering 4 s late (the sandbox's `latency` fault): the first scout
(a topic, and the inbox alike) answers at `answer_within_s` with every platform named as
still coming, the next scout on the topic (the next inbox read) has them, and status answers without waiting for the stale platforms' probes.
The deadlines are a gated fake clock's sleeps, passed at once by the test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from gwanjong_gateway.config import parse
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.server import build_gateway
from gwanjong_gateway.status_report import STATUS_PROBE_S
from gwanjong_sandbox.control import SandboxControl
from tests.fakes.clock import FakeClock
from tests.gateway.helpers import config_text
from tests.mcp import call
from tests.platforms import SPECS

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]
LATE_MS = 4000


async def test_scout_and_status_answer_within_a_clients_patience(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    names = list(SPECS)
    config = parse(
        config_text(tmp_path, names, settings={"answer_within_s": 4, "call_timeout_s": 30})
    )
    # each server waits long enough for a 4 s answer (said here: it is what this test needs)
    transports = {
        name: SPECS[name].build(sandbox.url, **SPECS[name].timeouts(30)) for name in names
    }
    gw = Gateway(config, environ={}, transports=transports)
    deadline = FakeClock(gated=True)
    gw.sleep = deadline.sleep
    await gw.upstreams.start_all(only=set(names))  # started before the platforms slow down
    for name in names:
        sandbox.fault(name, "latency", ms=LATE_MS)
    first: dict[str, Any] = {}
    with anyio.fail_after(120):  # a guard against a hang, not a measurement
        async with Client(build_gateway(config, gateway=gw)) as client:

            async def ask(tool: str, args: dict[str, Any]) -> None:
                first.clear()
                first.update(await call(client, tool, **args))

            async with anyio.create_task_group() as tg:
                tg.start_soon(ask, "status", {})
                await deadline.pass_one()  # a second has not passed on the platforms' side
            assert deadline.slept == [STATUS_PROBE_S]
            assert set(first["platforms"]) == set(names)

            async with anyio.create_task_group() as tg:
                tg.start_soon(ask, "scout", {"topic": "rust async", "limit": 25})
                await deadline.pass_one()  # answer_within_s passes before any platform answers
            assert deadline.slept[-1] == 4
            assert first["opportunities"] == []
            assert set(first["errors"]) == set(names)
            assert all(e.startswith("still coming: ") for e in first["errors"].values())

            while gw.late.pending():  # the reads go on after the answer
                await anyio.sleep(0.1)
            second = await call(client, "scout", topic="rust async", limit=25)
            assert second["errors"] == {}
            assert {o["platform"] for o in second["opportunities"]} == set(names)

            deadline = FakeClock(gated=True)  # slept: the inbox's deadline alone
            gw.sleep = deadline.sleep
            async with anyio.create_task_group() as tg:  # the inbox likewise
                tg.start_soon(ask, "scout", {"source": "mentions", "limit": 25})
                await deadline.pass_one()
            assert deadline.slept == [4]
            assert first["opportunities"] == []
            assert set(first["errors"]) == set(names)
            assert all(e.startswith("still coming: ") for e in first["errors"].values())

            while gw.late.pending():
                await anyio.sleep(0.1)
            inbox = await call(client, "scout", source="mentions", limit=25)
            assert {o["platform"] for o in inbox["opportunities"]} == set(names)
            assert all(o["summoned"] for o in inbox["opportunities"])
