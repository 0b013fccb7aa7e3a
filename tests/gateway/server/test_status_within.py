"""status answers from what is known within a second, even when a platform is slow to
answer `capabilities`; the refresh goes on in the background for the next status. The
deadline is the fake clock's gated sleep: the test decides when it passes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from gwanjong_gateway.status_report import STATUS_PROBE_S
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import TWEETS
from tests.gateway.helpers import gateway_of
from tests.mcp import call

pytestmark = pytest.mark.anyio


async def test_status_answers_within_a_second_while_a_platform_is_slow(tmp_path: Path) -> None:
    assert STATUS_PROBE_S < 1
    tweets = FakePlatform(TWEETS)
    gw, mcp = gateway_of(tmp_path, tweets)
    with anyio.fail_after(60):  # a guard against a hang, not a measurement
        async with Client(mcp) as client:
            await gw.upstreams.start_all(only={"twitter"})  # running, never probed
            tweets.hang("capabilities")
            deadline = FakeClock(gated=True)
            gw.sleep = deadline.sleep
            first: dict[str, Any] = {}

            async def status() -> None:
                first.update(await call(client, "status"))

            async with anyio.create_task_group() as tg:
                tg.start_soon(status)
                await anyio.wait_all_tasks_blocked()  # capabilities hangs
                await deadline.pass_one()
            assert deadline.slept == [STATUS_PROBE_S]
            assert first["platforms"]["twitter"]["platform"].get("checked_at") is None

            tweets.release()  # the background refresh hears back
            await anyio.wait_all_tasks_blocked()
            second = await call(client, "status")
            assert second["platforms"]["twitter"]["platform"].get("checked_at")
            assert tweets.asked("capabilities") == ["capabilities"]  # one refresh, not two
