"""status answers from what is known within a second, even when a platform is slow to
answer `capabilities`; the refresh goes on in the background for the next status. The
record and the usage log are waited for likewise, side by side. Every deadline is the
gateway's clock, here a fake clock's gated sleep: the test decides when it passes."""

from __future__ import annotations

import threading
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from gwanjong_gateway.record.readers import EVERYONE, Reader
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.status_report import (
    STATUS_PROBE_S,
    STATUS_RECORD_S,
    StatusResult,
    status_report,
)
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
            # only the probe's deadline passed: the record and the usage log answered
            assert deadline.slept == [STATUS_PROBE_S]
            assert first["platforms"]["twitter"]["platform"].get("checked_at") is None
            assert "strike_record" not in first
            assert not any("did not answer" in line for line in first["usage_7d"]), first

            tweets.release()  # the background refresh hears back
            await anyio.wait_all_tasks_blocked()
            second = await call(client, "status")
            assert second["platforms"]["twitter"]["platform"].get("checked_at")
            assert tweets.asked("capabilities") == ["capabilities"]  # one refresh, not two


#: what the pipeline reports of a caller with nothing scouted yet (status's own part)
NOTHING_YET: dict[str, Any] = {"state": {}, "tools": {"available": [], "blocked": []}}


async def test_a_usage_log_slow_in_real_time_is_awaited_until_the_gateways_deadline(
    tmp_path: Path,
) -> None:
    # The usage log answers only when the test lets it, however long that takes in real
    # time: status waits for it by the gateway's clock, whose deadline has not passed.
    gw, _mcp = gateway_of(tmp_path, FakePlatform(TWEETS))
    deadline = FakeClock(gated=True)
    gw.sleep = deadline.sleep
    begun, release = threading.Event(), threading.Event()

    def slow(reader: Reader) -> list[str]:  # the usage log's summary, slow to come
        begun.set()
        release.wait()
        return ["twitter: 3 calls, p95 12 ms"]

    answered: list[StatusResult] = []

    async def status() -> None:
        answered.append(await status_report(gw, NOTHING_YET, slow, EVERYONE))

    try:
        with anyio.fail_after(60):  # a guard against a hang, not a measurement
            async with anyio.create_task_group() as tg:
                tg.start_soon(status)
                assert await anyio.to_thread.run_sync(begun.wait, 60)  # the read is under way
                # its deadline waits on the gateway's clock, which has not moved
                assert STATUS_RECORD_S in deadline.waiting
                assert answered == []
                release.set()
    finally:
        release.set()
        gw.close_store()
    [first] = answered
    assert first.usage_7d == ["twitter: 3 calls, p95 12 ms"]
    assert first.strike_record is None
    assert deadline.slept == []  # no deadline passed: every part answered


async def test_a_frozen_record_and_usage_log_cost_status_one_deadline_of_its_clock(
    tmp_path: Path,
) -> None:
    # Another record call holds SQLite's one turn and the usage log never answers: both
    # deadlines wait on the gateway's clock at once, and once they pass status answers,
    # saying so, with no real time waited.
    gw, _mcp = gateway_of(tmp_path, FakePlatform(TWEETS))
    deadline = FakeClock(gated=True)
    gw.sleep = deadline.sleep
    holding, release = threading.Event(), threading.Event()

    def hold(store: StrikeStore) -> None:
        holding.set()
        release.wait()

    def frozen(reader: Reader) -> list[str]:
        release.wait()
        return ["never shown"]

    answered: list[StatusResult] = []
    done = anyio.Event()

    async def status() -> None:
        answered.append(await status_report(gw, NOTHING_YET, frozen, EVERYONE))
        done.set()

    try:
        with anyio.fail_after(60):  # a guard against a hang, not a measurement
            async with anyio.create_task_group() as tg:
                tg.start_soon(partial(gw.records.run_within, 600, hold))
                assert await anyio.to_thread.run_sync(holding.wait, 60)
                tg.start_soon(status)
                await anyio.wait_all_tasks_blocked()
                # side by side: the record's and the usage log's deadlines run at once
                assert deadline.waiting == [STATUS_RECORD_S, STATUS_RECORD_S]
                await deadline.pass_one()
                await deadline.pass_one()
                await done.wait()
                release.set()  # the held call ends; the abandoned status read never runs
    finally:
        release.set()
        gw.close_store()
    [first] = answered
    assert first.usage_7d == [f"the usage log did not answer within {STATUS_RECORD_S:g} s"]
    assert first.strike_record is not None
    assert first.strike_record.startswith(
        f"unavailable: the strike record did not answer within {STATUS_RECORD_S:g} s"
    )
    assert deadline.slept == [STATUS_RECORD_S, STATUS_RECORD_S]
