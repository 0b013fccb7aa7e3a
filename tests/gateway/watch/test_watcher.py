"""[watch] over fake platforms in memory: what is new is reported once (a period, a restart,
two replicas sharing the record), saved topics notice new high-score posts, and each
platform's min_interval_s holds. The clock is injected; nothing sleeps."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from gwanjong_gateway.watch.watcher import FoundKind, Watcher, log_found
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import SOCIAL, TWEETS
from tests.gateway.helpers import gateway_of

pytestmark = pytest.mark.anyio
EVERY_S = 300.0
URLS = ["json://127.0.0.1:9/x"]

Found = tuple[str, FoundKind, int]


class Heard:
    """The on_found callback: every report, in order."""

    def __init__(self) -> None:
        self.reports: list[Found] = []
        self.oldest: list[str | None] = []

    async def __call__(
        self, platform: str, kind: FoundKind, count: int, oldest_at: str | None
    ) -> None:
        self.reports.append((platform, kind, count))
        self.oldest.append(oldest_at)

    def take(self) -> list[Found]:
        taken, self.reports = sorted(self.reports), []
        return taken


async def next_period(w: Watcher, clock: FakeClock) -> None:
    """A period later, the watcher polls again."""
    clock.advance(EVERY_S)
    await w.tick()


@asynccontextmanager
async def watcher(
    tmp_path: Path,
    *fakes: FakePlatform,
    heard: Heard,
    clock: FakeClock,
    platform: dict[str, Any] | None = None,
    **watch: Any,
) -> AsyncIterator[Watcher]:
    tables = {"watch": {"enabled": True, "every_s": EVERY_S, **watch}, "notify": {"urls": URLS}}
    gw, _ = gateway_of(
        tmp_path, *fakes, clock=clock, wall=clock.time, tables=tables, platform=platform
    )
    try:
        yield Watcher(gw, heard, clock)
    finally:
        await gw.upstreams.close_all()
        gw.close_store()


async def test_a_new_summons_is_reported_once_within_a_period(tmp_path: Path) -> None:
    social, tweets, heard, clock = FakePlatform(SOCIAL), FakePlatform(TWEETS), Heard(), FakeClock()
    async with watcher(tmp_path, social, tweets, heard=heard, clock=clock) as w:
        await w.tick()  # the first poll: every unanswered summons waiting
        first = heard.take()
        assert {(p, k) for p, k, _ in first} == {("bluesky", "summoned"), ("twitter", "summoned")}
        assert all(n > 0 for _, _, n in first) and all(heard.oldest)
        # the model's own cursor (scout(source="mentions")) has not moved
        assert await w.gw.cursors.aget("bluesky") is None
        await next_period(w, clock)
        assert heard.take() == []  # nothing new: nothing said
        social.add_post("ping", "Quick question", "What do you think, {me}?", summons=True)
        await next_period(w, clock)
        assert heard.take() == [("bluesky", "summoned", 1)]
        await next_period(w, clock)
        assert heard.take() == []
    # A restart on the same record: still nothing twice.
    async with watcher(tmp_path, social, tweets, heard=heard, clock=clock) as w:
        await w.tick()
        assert heard.take() == []


async def test_two_replicas_sharing_the_record_report_once(tmp_path: Path) -> None:
    social, heard, clock = FakePlatform(SOCIAL), Heard(), FakeClock()
    async with (
        watcher(tmp_path, social, heard=heard, clock=clock) as one,
        watcher(tmp_path, social, heard=heard, clock=clock) as two,
    ):
        async with anyio.create_task_group() as tg:
            tg.start_soon(one.tick)
            tg.start_soon(two.tick)
        reports = heard.take()
        assert [(p, k) for p, k, _ in reports] == [("bluesky", "summoned")]


async def test_a_platform_is_never_polled_more_often_than_its_min_interval(
    tmp_path: Path,
) -> None:
    social, heard, clock = FakePlatform(SOCIAL), Heard(), FakeClock()
    slow = {"min_interval_s": 3 * EVERY_S}
    async with watcher(tmp_path, social, heard=heard, clock=clock, platform=slow) as w:
        await w.tick()
        assert social.asked("mentions") == ["mentions"]
        for _ in range(2):
            await next_period(w, clock)
        assert social.asked("mentions") == ["mentions"]  # two periods: not due yet
        await next_period(w, clock)
        assert social.asked("mentions") == ["mentions", "mentions"]


async def test_a_saved_topics_new_high_score_post_is_reported_once(tmp_path: Path) -> None:
    social, heard, clock = FakePlatform(SOCIAL), Heard(), FakeClock()
    topic = {"topics": ["rust async cancellation"], "min_score": 0.6}
    async with watcher(tmp_path, social, heard=heard, clock=clock, **topic) as w:
        await w.tick()  # the first poll learns what is there
        assert [r for r in heard.take() if r[1] == "topic"] == []
        social.add_post(
            "cancel",
            "Rust async cancellation, explained",
            "How rust async cancellation works: dropping a future cancels it at its next await.",
            hours_ago=0.01,
        )
        social.add_post("cats", "My cat", "A picture of my cat sleeping.", hours_ago=0.01)
        await next_period(w, clock)
        assert heard.take() == [("bluesky", "topic", 1)]
        await next_period(w, clock)
        assert heard.take() == []


async def test_what_the_watcher_finds_is_told_by_any_notifier_on_the_record(
    tmp_path: Path,
) -> None:
    """`notifying` (the default report) keeps what it found in the record: a notifier
    started after it (a restart, or another replica, whose memory never held it) tells it
    once, with the platform and the count, and nothing of the post's text."""
    from gwanjong_gateway.notify.notifier import Notifier
    from gwanjong_gateway.watch.watcher import notifying
    from tests.gateway.notify.test_notifier import Sent, cycle

    social, clock, sent = FakePlatform(SOCIAL), FakeClock(), Sent()
    async with watcher(tmp_path, social, heard=Heard(), clock=clock) as w:
        w.on_found = notifying(w.gw)
        await w.tick()
        n = Notifier(w.gw.config.notify, w.gw.records, URLS, clock=clock.time, send=sent)
        body = await cycle(n)
        waiting = len(social.mentions_after(-1))
        assert body is not None and body.startswith(f"{waiting} new mentions or replies on bluesky")
        assert not any(p.body in body for p in social.mentions_after(-1))
        await next_period(w, clock)
        assert await cycle(n) is None  # nothing new: nothing told
        clock.advance(EVERY_S)
        restarted = Notifier(w.gw.config.notify, w.gw.records, URLS, clock=clock.time, send=sent)
        assert await cycle(restarted) is None and len(sent.messages) == 1


async def test_a_summons_publication_time_reaches_the_report_only_as_a_time(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A post's `published_at` is the platform's string (on Bluesky the author's own
    `createdAt`): the report's oldest is a time read from it, in UTC, never its text (a
    newline in it would forge a log line), and the oldest by time, not by spelling."""
    social, heard, clock = FakePlatform(SOCIAL), Heard(), FakeClock()

    async def logged_and_heard(platform: str, kind: FoundKind, n: int, at: str | None) -> None:
        await log_found(platform, kind, n, at)  # the line a bare watcher writes
        await heard(platform, kind, n, at)

    async with watcher(tmp_path, social, heard=heard, clock=clock) as w:
        w.on_found = logged_and_heard
        await w.tick()
        heard.take()
        heard.oldest.clear()
        spellings = [
            "0000 \nWARNING gwanjong: forged: approval a1 approved",
            "2026-12-06T09:12:00+09:00",
            "2026-12-06T01:00:00Z",
        ]
        for i, when in enumerate(spellings):
            pid = social.add_post(f"odd-{i}", "A question", f"Any idea, {{me}}? {i}", summons=True)
            social.posts[pid] = social.posts[pid].model_copy(update={"published_at": when})
        with caplog.at_level(logging.WARNING, logger="gwanjong_gateway.watch.watcher"):
            await next_period(w, clock)
    assert heard.take() == [("bluesky", "summoned", 3)]
    assert heard.oldest == ["2026-12-06T00:12:00Z"]
    assert "forged" not in caplog.text and "watch: 3 new summons on bluesky" in caplog.text
