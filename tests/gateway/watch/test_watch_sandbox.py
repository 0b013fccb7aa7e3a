"""[watch] through the real platform servers (their SDKs over HTTP to the sandbox): a new
summons on each platform and a saved topic's new high-score post are reported once
within one period and never again after a restart; the limits stop the watcher before
the platform's do: X polled no more often than its min_interval_s, a rate window X shut
holding the watcher (refused by the server's limiter, never sent) until it reopens, and
X's daily spend cap never exceeded, refusing its paid reads before they reach X, with a
line in the log that says so. The watcher's clock is injected; nothing sleeps."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from gwanjong_gateway.config import parse
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.rules.policy import day_start
from gwanjong_gateway.watch.watcher import Watcher
from gwanjong_sandbox.control import SandboxControl
from tests.fakes.clock import FakeClock
from tests.gateway.helpers import config_text
from tests.gateway.watch.test_watcher import EVERY_S, Heard, next_period
from tests.platforms import SPECS, needs

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]


@asynccontextmanager
async def watching(
    sandbox: SandboxControl,
    tmp_path: Path,
    heard: Heard,
    clock: FakeClock,
    tables: Mapping[str, Mapping[str, Any]] | None = None,
    others: Mapping[str, Mapping[str, Any]] | None = None,
    **watch: Any,
) -> AsyncIterator[Watcher]:
    names = list(SPECS)
    more = {"watch": {"enabled": True, "every_s": EVERY_S, **watch}, **(tables or {})}
    own = [n for n in names if n not in (others or {})]
    config = parse(config_text(tmp_path, own, tables=more, others=others))
    transports = {name: SPECS[name].build(sandbox.url) for name in names}
    gw = Gateway(config, environ={}, transports=transports, clock=clock, wall=clock.time)
    try:
        yield Watcher(gw, heard, clock)
    finally:
        await gw.upstreams.close_all()
        gw.close_store()


async def test_a_new_summons_on_each_platform_and_a_saved_topics_new_post_are_reported_once(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    heard, clock = Heard(), FakeClock()
    topic = {"topics": ["zig comptime allocators"], "min_score": 0.5}
    async with watching(sandbox, tmp_path, heard, clock, **topic) as w:
        await w.tick()  # what waits already (the seeded summons)
        first = heard.take()
        assert {p for p, k, _ in first if k == "summoned"} == set(SPECS)
        assert [r for r in first if r[1] == "topic"] == []
        await next_period(w, clock)
        assert heard.take() == []
        sandbox.flood_inbox(1)  # one new summons on every platform
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
        await next_period(w, clock)
        reports = heard.take()  # one report per platform (a summons may list as two)
        summons = [(p, k) for p, k, _ in reports if k == "summoned"]
        assert summons == sorted((p, "summoned") for p in SPECS)
        topics = [r for r in reports if r[1] == "topic"]
        assert topics and all(count == 1 for _, _, count in topics)
        assert {p for p, _, _ in topics} <= set(SPECS)
        assert len(summons) + len(topics) == len(reports)
        await next_period(w, clock)
        assert heard.take() == []
    async with watching(sandbox, tmp_path, heard, clock, **topic) as w:  # a restart
        await next_period(w, clock)
        assert heard.take() == []


def x_mentions_reads(sandbox: SandboxControl) -> int:
    return sum(
        n
        for k, n in sandbox.request_paths().items()
        if k.startswith("twitter ") and "mentions" in k
    )


async def test_x_is_polled_no_more_often_than_its_min_interval(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("twitter")
    heard, clock = Heard(), FakeClock()
    others = {"twitter": {"min_interval_s": 4 * EVERY_S}}
    before = x_mentions_reads(sandbox)
    async with watching(sandbox, tmp_path, heard, clock, others=others) as w:
        for _ in range(8):  # two X intervals of four periods
            await w.tick()
            clock.advance(EVERY_S)
    assert x_mentions_reads(sandbox) - before == 2


async def test_a_rate_window_x_shut_holds_the_watcher_until_it_reopens(
    sandbox: SandboxControl, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    needs("twitter")
    heard, clock = Heard(), FakeClock()
    async with watching(sandbox, tmp_path, heard, clock) as w:
        await w.tick()  # what waits already
        heard.take()
        sandbox.fault("twitter", status=429, retry_after=900, match="mentions")
        sandbox.flood_inbox(1)
        before = x_mentions_reads(sandbox)
        with caplog.at_level(logging.INFO, logger="gwanjong_gateway.watch.watcher"):
            for _ in range(4):
                await next_period(w, clock)
        # X said no once; the server's limiter held every later poll: nothing more sent
        assert x_mentions_reads(sandbox) - before == 1
        told = [r.getMessage() for r in caplog.records if "watch: twitter:" in r.getMessage()]
        assert len(told) == 4 and all("rate_limited" in t for t in told), told
    reports = heard.take()
    assert {p for p, _, _ in reports} == set(SPECS) - {"twitter"}  # the others went on


async def test_xs_daily_spend_cap_stops_the_watcher_before_x_is_asked(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    # (with a cap a read fits in, X's inbox is read: the next test's first periods)
    needs("twitter")
    heard, clock = Heard(), FakeClock()
    cap = {"limits": {"twitter": {"daily_usd": 0.001}}}  # less than one paid read
    before = x_mentions_reads(sandbox)
    async with watching(sandbox, tmp_path, heard, clock, tables=cap) as w:
        for _ in range(3):
            await next_period(w, clock)
    assert x_mentions_reads(sandbox) == before  # refused by our budget: nothing reached X
    assert "twitter" not in {p for p, _, _ in heard.take()}


async def test_xs_daily_spend_cap_is_never_exceeded_and_the_log_says_so(
    sandbox: SandboxControl, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    needs("twitter")
    heard, clock = Heard(), FakeClock()
    cap = {"limits": {"twitter": {"daily_usd": 0.15}}}  # a few paid inbox reads
    refused_at = None
    async with watching(sandbox, tmp_path, heard, clock, tables=cap) as w:
        with caplog.at_level(logging.INFO, logger="gwanjong_gateway.watch.watcher"):
            for n in range(10):
                sandbox.flood_inbox(5)  # new summons every period: each read costs
                clock.advance(EVERY_S)
                before = x_mentions_reads(sandbox)
                await w.tick()
                if x_mentions_reads(sandbox) == before:
                    refused_at = refused_at if refused_at is not None else n
                else:
                    assert refused_at is None  # once refused, X is not read again today
        spent = w.gw.spend.ledger.spent("twitter", day_start(clock.time()))
    assert refused_at is not None and refused_at > 0  # read until the cap, then refused
    assert 0 < spent <= 150_000  # micro-dollars: never past the cap
    told = [r.getMessage() for r in caplog.records if "watch: twitter:" in r.getMessage()]
    assert any("Daily spend budget reached on twitter" in t for t in told), told
