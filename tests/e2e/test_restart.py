"""A restart keeps the workflow: scout, stop the gateway process, start a new one on the
same state dir (the SQLite record, the default), then draft and strike the same handle.

Over stdio the first process ends when its client closes (both protocol eras); over HTTP
it is killed outright (SIGKILL, nothing flushed at exit): the handle was durable when
scout answered. Each case ends with exactly one write in the sandbox and in the record."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_sandbox.control import SandboxControl
from tests.e2e.procs import alive
from tests.e2e.strikes import history, live_config
from tests.e2e.test_chain import gateway
from tests.gateway.helpers import opportunity_for
from tests.gateway.http_gateway import client, http_gateway
from tests.mcp import call, until
from tests.platforms import needs

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.stdio]
TEXT = "Guards around each await fixed it for us."


async def scout(c: Client[Any]) -> str:
    topic = "rust async cancellation"
    scouted = await call(c, "scout", topic=topic, platforms=["reddit"], limit=10)
    return opportunity_for(scouted, "reddit", "Rust async")


async def draft_and_strike(c: Client[Any], handle: str) -> dict[str, Any]:
    await call(c, "draft", opportunity_id=handle)  # raises on an error
    return await call(c, "strike", opportunity_id=handle, action="comment", content=TEXT)


def one_write(sandbox: SandboxControl, tmp: Path, done: dict[str, Any]) -> None:
    assert done["status"] == "posted", done
    assert len(sandbox.writes("reddit")) == 1
    rows = history(tmp)
    assert [(r.id, r.status) for r in rows] == [(done["record"], StrikeStatus.POSTED)], rows


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_handle_outlives_the_gateway_process_over_stdio(
    sandbox: SandboxControl, tmp_path: Path, mode: str
) -> None:
    needs("reddit")
    config = live_config(tmp_path, sandbox, ["reddit"])
    async with Client(gateway(config), mode=mode, timeout=90) as first:  # type: ignore[arg-type]
        handle = await scout(first)
    # The first process is gone (its client closed stdin); a new one starts from disk.
    async with Client(gateway(config), mode=mode, timeout=90) as second:  # type: ignore[arg-type]
        done = await draft_and_strike(second, handle)
    assert (tmp_path / "state" / "gwanjong.db").exists()
    one_write(sandbox, tmp_path, done)


async def test_a_handle_outlives_a_killed_http_gateway(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("reddit")
    config = live_config(tmp_path, sandbox, ["reddit"])
    with http_gateway(config, log_level="INFO") as running:
        async with client(running.url, None) as first:
            handle = await scout(first)
        os.kill(running.process.pid, signal.SIGKILL)
        await until(lambda: not alive(running.process.pid) or running.process.poll() is not None)
    with http_gateway(config, log_level="INFO") as again:
        async with client(again.url, None) as second:
            done = await draft_and_strike(second, handle)
    one_write(sandbox, tmp_path, done)
