"""The usage page draws its bars from the usage log; figures older than USAGE_FRESH_S are
read again in the background while the page answers at once with the ones it has (the
console's clock is injected: no wall time)."""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import pytest

from gwanjong_gateway.console.health_pages import USAGE_FRESH_S
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.gateway.console.helpers import serving, sign_in
from tests.gateway.helpers import gateway_of

pytestmark = pytest.mark.anyio


def calls(html: str) -> int:
    found = re.search(r"Last 7 days: (\d+) platform calls", html)
    assert found, html[:2000]
    return int(found.group(1))


async def test_figures_are_refreshed_in_the_background(forum: FakePlatform, tmp_path: Path) -> None:
    clock = FakeClock()
    async with serving(*gateway_of(tmp_path, forum, writes="dry-run"), clock=clock.time) as s:
        log = s.console.usage()
        for _ in range(3):
            log.record_platform("devto", "search", "", 0.05)
        log.record_platform("devto", "search", "rate_limited", 0.05, retry_after=30)
        await sign_in(s)
        first = (await s.http.get("/usage")).text
        assert calls(first) == 4
        assert "<svg" in first and ">rate_limited<" in first  # the errors chart's legend
        log.record_platform("devto", "trending", "", 0.05)
        clock.advance(USAGE_FRESH_S - 1)
        assert calls((await s.http.get("/usage")).text) == 4  # fresh enough: not read again
        clock.advance(2)
        assert calls((await s.http.get("/usage")).text) == 4  # stale: answered, read behind
        with anyio.fail_after(30):  # only catches a hang
            while s.console.usage_reading:
                await anyio.sleep(0.01)
        assert calls((await s.http.get("/usage")).text) == 5
