"""[watch] through the real platform servers (their SDKs over HTTP to the sandbox): a new
summons on each platform is reported once within one period and never again after a
restart; a saved topic's new high-score post likewise; X's daily spend cap stops the
watcher's paid reads before anything reaches X. The clock is injected; nothing sleeps."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from gwanjong_gateway.config import parse
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.watch.watcher import Watcher
from gwanjong_sandbox.control import SandboxControl
from tests.fakes.clock import FakeClock
from tests.gateway.helpers import config_text
from tests.gateway.watch.test_watcher import EVERY_S, Heard
from tests.platforms import SPECS

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]


@asynccontextmanager
async def watching(
    sandbox: SandboxControl,
    tmp_path: Path,
    heard: Heard,
    clock: FakeClock,
    tables: Mapping[str, Mapping[str, Any]] | None = None,
    **watch: Any,
) -> AsyncIterator[Watcher]:
    names = list(SPECS)
    more = {"watch": {"enabled": True, "every_s": EVERY_S, **watch}, **(tables or {})}
    config = parse(config_text(tmp_path, names, tables=more))
    transports = {name: SPECS[name].build(sandbox.url) for name in names}
    gw = Gateway(config, environ={}, transports=transports, clock=clock, wall=clock.time)
    try:
        yield Watcher(gw, heard, clock)
    finally:
        await gw.upstreams.close_all()
        gw.close_store()


async def test_a_new_summons_on_each_platform_is_reported_once(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    heard, clock = Heard(), FakeClock()
    async with watching(sandbox, tmp_path, heard, clock) as w:
        await w.tick()  # what waits already (the seeded summons)
        assert {p for p, k, _ in heard.take() if k == "summoned"} == set(SPECS)
        clock.advance(EVERY_S)
        await w.tick()
        assert heard.take() == []
        sandbox.flood_inbox(1)  # one new summons on every platform
        clock.advance(EVERY_S)
        await w.tick()
        reports = heard.take()  # one report per platform (a summons may list as two)
        assert [(p, k) for p, k, _ in reports] == sorted((p, "summoned") for p in SPECS)
        clock.advance(EVERY_S)
        await w.tick()
        assert heard.take() == []
    async with watching(sandbox, tmp_path, heard, clock) as w:  # a restart
        clock.advance(EVERY_S)
        await w.tick()
        assert heard.take() == []


async def test_a_saved_topics_new_post_is_reported_once(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    heard, clock = Heard(), FakeClock()
    topic = "zig comptime allocators"
    async with watching(sandbox, tmp_path, heard, clock, topics=[topic], min_score=0.5) as w:
        await w.tick()
        assert [r for r in heard.take() if r[1] == "topic"] == []
        sandbox.add_post(
            {
                "key": "zig-comptime",
                "title": "Zig comptime allocators in practice",
                "body": "How zig comptime allocators change the way we write allocators.",
                "author": "ziggy",
                "tags": ["zig"],
                "hours_ago": 0.1,
            }
        )
        clock.advance(EVERY_S)
        await w.tick()
        topics = [r for r in heard.take() if r[1] == "topic"]
        assert topics and all(count == 1 for _, _, count in topics)
        assert {p for p, _, _ in topics} <= set(SPECS)
        clock.advance(EVERY_S)
        await w.tick()
        assert [r for r in heard.take() if r[1] == "topic"] == []


def x_mentions_reads(sandbox: SandboxControl) -> int:
    return sum(
        n
        for k, n in sandbox.request_paths().items()
        if k.startswith("twitter ") and "mentions" in k
    )


async def test_xs_daily_spend_cap_stops_the_watcher_before_x_is_asked(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    if "twitter" not in SPECS:
        pytest.skip("X is not in this run (GWANJONG_TEST_PLATFORMS)")
    heard, clock = Heard(), FakeClock()
    before = x_mentions_reads(sandbox)
    async with watching(sandbox, tmp_path / "open", heard, clock) as w:
        await w.tick()
    assert x_mentions_reads(sandbox) > before  # without a cap, the watcher reads X's inbox
    heard.take()

    cap = {"limits": {"twitter": {"daily_usd": 0.001}}}  # less than one paid read
    before = x_mentions_reads(sandbox)
    async with watching(sandbox, tmp_path / "capped", heard, clock, tables=cap) as w:
        for _ in range(3):
            clock.advance(EVERY_S)
            await w.tick()
    assert x_mentions_reads(sandbox) == before  # refused by our budget: nothing reached X
    assert "twitter" not in {p for p, _, _ in heard.take()}
