"""A wall clock stepped BACK during an unsure write (fast tier: the real gateway over the
fake platform, with injected wall and monotonic clocks): the write is sent exactly once,
the unsure write keeps holding its target, and the minimum interval that follows refuses
for its real length (measured on the monotonic clock), not 400 s longer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client, FastMCP

from gwanjong_gateway.rules import policy
from gwanjong_shared.contract.errors import ErrorKind
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import LINKS
from tests.gateway.helpers import drafted, gateway_of
from tests.gateway.record.test_journal import TITLE, TOPIC
from tests.gateway.rows import history
from tests.gateway.strike.test_strike import strike

pytestmark = pytest.mark.anyio
INTERVAL = 30


def stepped_gateway(links: FakePlatform, state: Path, clock: FakeClock) -> FastMCP[Any]:
    tables, platform = {"safety": {"settle_window_s": 120}}, {"min_interval_s": INTERVAL}
    _gw, mcp = gateway_of(
        state, links, clock=clock, wall=clock.time, tables=tables, platform=platform
    )
    return mcp


async def test_a_clock_stepped_back_during_an_unsure_write_sends_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FakeClock(now=500.0, wall=1_800_000_000.0)
    monkeypatch.setattr(policy, "FUTURE", policy.Future(clock))  # the refusals' monotonic clock
    links = FakePlatform(LINKS)
    links.lag = True  # the post lands but does not show in reads yet
    links.land("write_post", ErrorKind.TIMEOUT)  # ...and the platform's answer is lost
    content, title = "Cancel scopes around every await.", "Cancel scopes"
    async with Client(stepped_gateway(links, tmp_path, clock)) as client:
        oid = await drafted(client, TOPIC, TITLE, "reddit", limit=10)
        first = await strike(client, oid, "post", content, title)
        assert first["error"].startswith("timeout"), first
        assert "may already be written" in first["error"], first
        clock.step_wall(-400)  # the clock steps back 400 s while the write is unsure
        clock.now += 5
        for _ in range(3):  # asked again and again: held, never sent again
            again = await strike(client, oid, "post", content, title)
            assert again["status"] == "duplicate", again
            clock.now += 1
        assert len(links.written("write_post")) == 1
        links.show_late()
        clock.now += 10
        settled = await strike(client, oid, "post", content, title)
        assert settled["status"] == "duplicate", settled
        assert [str(r.status) for r in history(tmp_path) if r.action == "post"] == ["posted"]
        # The last write now looks 400 s in the future: the interval refuses for at most
        # its own 30 s of real (monotonic) time, not 400 s more.
        other = await strike(client, oid, "post", "A different post entirely.", "Another")
        assert other["status"] == "refused" and "min_interval_s" in other["reason"], other
        assert 1 <= other["retry_after"] <= INTERVAL, other
        clock.now += other["retry_after"]
        clock.wall += other["retry_after"]
        later = await strike(client, oid, "post", "A different post entirely.", "Another")
        assert later["status"] == "posted", later
    assert len(links.written("write_post")) == 2  # the unsure one once, and the other
