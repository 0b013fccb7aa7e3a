"""A call that comes while its crashed server is being restarted waits for the restart
(within its own time) instead of answering "down" at once. Time is a fake clock whose
sleep moves it: the background restart's backoff passes at once, nothing waits on the
wall."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from gwanjong_gateway.config import PlatformConfig
from gwanjong_gateway.platforms.upstream import Health, Upstream
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform

pytestmark = pytest.mark.anyio


class Flaky(Upstream):
    """Starts fail while `broken` says so (as a crashed server's first restart may)."""

    broken: int = 0

    async def _transport(self) -> Any:
        if self.broken:
            self.broken -= 1
            raise ConnectionError("the server is not back yet")
        return await super()._transport()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(gated=True)


@pytest.fixture
async def up(forum: FakePlatform, clock: FakeClock) -> AsyncIterator[Flaky]:
    flaky = Flaky("devto", PlatformConfig(), {}, clock=clock, sleep=clock.sleep)
    flaky.transport_override = forum.server()
    try:
        yield flaky
    finally:
        await flaky.close()


async def _crash(up: Flaky, failed_restarts: int) -> None:
    """Up, then the connection is lost mid-call (restarted at once, in the background);
    the next `failed_restarts` starts fail."""
    assert await up.ensure() is not None
    up.broken = failed_restarts
    await up._lost(up._generation, "connection lost during search", immediate=True)
    assert up.health is Health.DOWN


async def test_a_call_after_a_crash_waits_for_the_restart(up: Flaky, clock: FakeClock) -> None:
    outcomes: list[Any] = []
    await _crash(up, failed_restarts=1)
    async with anyio.create_task_group() as tg:

        async def call() -> None:
            outcomes.append(await up.call("capabilities", {}, timeout_s=20))
            tg.cancel_scope.cancel()

        tg.start_soon(call)
        while True:  # let the background restart's backoff pass, one sleep at a time
            await clock.pass_one()
    [outcome] = outcomes
    assert outcome.ok, outcome.message  # not "down (next try in 4 s)"
    assert up.health is Health.UP and up.broken == 0
    assert sum(clock.slept) >= 4  # the backoff after the failed restart, on the clock


async def test_a_call_shorter_than_the_backoff_still_fails_fast(
    up: Flaky, clock: FakeClock
) -> None:
    await _crash(up, failed_restarts=1)
    outcome = await up.call("capabilities", {}, timeout_s=3)
    assert not outcome.ok and "is down" in outcome.message
    assert "next try in 4 s" in outcome.message
    assert clock.slept == []  # answered at once


async def test_a_server_that_never_started_keeps_failing_fast(up: Flaky, clock: FakeClock) -> None:
    up.broken = 1
    assert await up.ensure() is None and up.breaker.is_open()
    outcome = await up.call("capabilities", {}, timeout_s=20)
    assert not outcome.ok and "next try in 2 s" in outcome.message
    assert clock.slept == []
