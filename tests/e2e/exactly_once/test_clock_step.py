"""A wall clock stepped during an unsure write (NTP correction, VM resume) fools neither
the settling nor the refusals: the gateway process runs with a test-stepped `time.time`
(tests/e2e/exactly_once/clockstep.py), the real platform server and the sandbox's `slow_write`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_sandbox.control import SandboxControl
from tests.e2e.exactly_once.test_exactly_once import (
    POST,
    may_be_written,
    settled_as_posted,
    until_pending,
)
from tests.e2e.strikes import history, live_config, scout_draft, server_timeout, strike
from tests.e2e.test_chain import PY
from tests.mcp import approves
from tests.platforms import needs

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.stdio]
CLOCKSTEP = Path(__file__).with_name("clockstep.py")


def stepped_gateway(cfg: Path, offset: Path) -> StdioTransport:
    return StdioTransport(
        command=PY,
        args=[str(CLOCKSTEP), str(offset), "gwanjong_gateway", "--config", str(cfg)],
        env={"FASTMCP_LOG_LEVEL": "WARNING"},
    )


async def unsure_post_while_the_clock_steps(
    client: Client[Any], sandbox: SandboxControl, tmp: Path, offset: Path, step: int
) -> str:
    """A Dev.to post whose answer is late (the server's 2 s timeout gives up; the sandbox
    applies it 8 s after receiving it), with the gateway's clock stepped ``step`` seconds
    while it is out. The strike answered timeout / may already be written; the opportunity."""
    oid = await scout_draft(client, "devto", "rust async", "Rust async")
    sandbox.fault("devto", kind="slow_write", seconds=8, match="/api/articles")
    answers: list[dict[str, Any]] = []
    async with anyio.create_task_group() as tg:

        async def write() -> None:
            answers.append(await strike(client, oid, "post", POST["content"], POST["title"]))

        tg.start_soon(write)
        await until_pending(tmp)
        await anyio.Path(offset).write_text(str(step))  # the clock steps while the write is out
    [first] = answers
    assert first["error"].startswith("timeout"), first
    may_be_written(first)
    return oid


@pytest.mark.parametrize("step", [400, -400], ids=["forward", "back"])
async def test_a_clock_step_during_an_unsure_write_sends_it_once(
    sandbox: SandboxControl, tmp_path: Path, step: int
) -> None:
    needs("devto")
    offset = tmp_path / "offset"
    offset.write_text("0")
    cfg = live_config(
        tmp_path,
        sandbox,
        ["devto"],
        tables={"safety": {"settle_window_s": 20}},
        platform={"min_interval_s": 30},
        others=server_timeout(sandbox, "devto", 2),  # gives up before the late write lands
    )
    async with Client(
        stepped_gateway(cfg, offset), timeout=90, elicitation_handler=approves
    ) as client:
        oid = await unsure_post_while_the_clock_steps(client, sandbox, tmp_path, offset, step)
        # Forward: the wall clock says 400 s have passed, far past the 20 s window. Back: the
        # unsure write looks 400 s in the future. Either way it is held, never sent again
        # (reading back finds nothing yet; it lands later).
        retry = await strike(client, oid, "post", POST["content"], POST["title"])
        assert retry["status"] == "duplicate", retry
        if step > 0:
            may_be_written(retry)
        await settled_as_posted(client, oid, "post", POST["content"], POST["title"])
        assert len(sandbox.writes("devto")) == 1
        if step > 0:
            # Now the clock goes 800 s back (400 s behind real time): the last write looks
            # 400 s in the future.
            offset.write_text("-400")
        # The minimum interval refuses for its own 30 s at most, not 400 s more.
        other = await strike(client, oid, "post", "A second, different post.", "Another")
        text = str(other)
        assert "min_interval_s" in text, other
        wait = int(re.search(r"Try again in (\d+) s", text).group(1))  # type: ignore[union-attr]
        assert wait <= 30, other
    assert len(sandbox.writes("devto")) == 1
    assert [r.status for r in history(tmp_path) if r.action == "post"][-1] == StrikeStatus.POSTED
