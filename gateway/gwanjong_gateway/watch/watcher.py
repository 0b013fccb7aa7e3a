"""The watcher: every `[watch] every_s`, the inbox and each saved topic (the same code
scout uses), and `on_found` for what is new. It only reads.

Its calls go through `Upstreams.call`, so the spend gate, rate limiter and breaker apply,
and a platform is never polled more often than its `min_interval_s`. Its cursors (`watch:`
keys in `inbox_cursors`) are apart from the model's, so watching never hides a summons; a
period's finds are claimed by compare-and-set, so exactly one replica reports them.
"""

from __future__ import annotations

import json
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Literal

import anyio

from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.platforms.watched import Watched
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.scout import inbox
from gwanjong_gateway.scout import opportunities as scouting
from gwanjong_gateway.scout.acted import acted_in
from gwanjong_gateway.scout.state import Opportunity
from gwanjong_shared.contract.errors import PlatformError

log = logging.getLogger(__name__)

FoundKind = Literal["summoned", "topic"]
#: summons this process's watcher noticed since the person last opened the console's Inbox
#: page (a count to glance at, not a record: the record keeps the cursors); absent: no watcher
NOTICED: weakref.WeakKeyDictionary[Gateway, int] = weakref.WeakKeyDictionary()
#: how many ids of a topic's high-score posts are remembered per platform
SEEN_IDS = 300
PER_PLATFORM = 10


#: what the watcher reports: on a platform, how many new items of a kind, the oldest at
#: (ISO 8601 or None). Names and counts only, never platform text; once per platform, kind
#: and period across replicas.
OnFound = Callable[[str, FoundKind, int, str | None], Awaitable[None]]


async def log_found(platform: str, kind: FoundKind, count: int, oldest_at: str | None) -> None:
    """A line in the log: what `notifying` does first, and all a bare `Watcher` does."""
    what = "summons" if kind == "summoned" else "posts on a saved topic"
    log.warning("watch: %d new %s on %s (oldest %s)", count, what, platform, oldest_at or "?")


class _Claims:
    """The watcher's cursors in the record, read then moved by compare-and-set."""

    def __init__(self, gw: Gateway, prefix: str) -> None:
        self.gw = gw
        self.prefix = prefix
        self.read: dict[str, str | None] = {}
        #: platforms whose cursor this process moved (it owns their finds)
        self.won: set[str] = set()

    async def aget(self, platform: str) -> str | None:
        try:
            value = await self.gw.records.run(StrikeStore.inbox_cursor, self.prefix + platform)
        except PlatformError as exc:
            # The record is down: nothing is claimed this period (no notice twice).
            log.warning("watch: the record is unavailable (%s); %s waits", exc, platform)
            return None
        self.read[platform] = value
        return value

    async def aset(self, platform: str, cursor: str) -> None:
        if platform not in self.read:
            return  # never read: nothing to claim
        old = self.read[platform]
        if cursor == old:
            return
        try:
            moved = await self.gw.records.run(
                StrikeStore.swap_inbox_cursor, self.prefix + platform, old, cursor
            )
        except PlatformError as exc:
            log.warning("watch: could not claim %s's finds (%s)", platform, exc)
            return
        if moved:
            self.won.add(platform)


class Watcher:
    def __init__(
        self,
        gw: Gateway,
        on_found: OnFound = log_found,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.gw = gw
        self.on_found = on_found
        self.clock = clock
        self.settings = gw.config.watch
        #: platform -> when it may be polled again
        self._next: dict[str, float] = {}
        NOTICED.setdefault(gw, 0)

    def platforms(self) -> list[str]:
        """The platforms due now (each at most once per max(every_s, min_interval_s))."""
        config = self.gw.config
        names = self.settings.platforms or [n for n, p in config.platforms.items() if p.enabled]
        now = self.clock()
        due = [n for n in names if n in config.platforms and self._next.get(n, 0.0) <= now]
        for name in due:
            gap = max(self.settings.every_s, config.platforms[name].min_interval_s)
            self._next[name] = now + gap
        return due

    async def tick(self) -> None:
        """One period: poll the platforms that are due, report what is new."""
        due = self.platforms()
        if not due:
            return
        await self._summons(due)
        for topic in self.settings.topics:
            await self._topic(topic, due)

    async def run_forever(self, sleep: Callable[[float], Awaitable[None]] = anyio.sleep) -> None:
        while True:
            try:
                await self.tick()
            except Exception:  # one bad period is logged; watching goes on
                log.exception("watch: a poll failed")
            await sleep(self.settings.every_s)

    async def _summons(self, due: list[str]) -> None:
        claims = _Claims(self.gw, "watch:inbox:")
        acted = acted_in(self.gw.records, tolerant=True)
        found, notes = await inbox.inbox(
            self.gw.upstreams,
            acted,
            claims,
            due,
            inbox.PER_PLATFORM * len(due),
            self.gw.config.safety.opt_out,
        )
        for platform, note in notes.items():
            log.info("watch: %s: %s", platform, note)
        await self._report(found, claims.won, "summoned")

    async def _topic(self, topic: str, due: list[str]) -> None:
        acted = acted_in(self.gw.records, tolerant=True)
        found, errors = await scouting.scout(
            self.gw.upstreams,
            acted,
            topic,
            due,
            PER_PLATFORM * len(due),
            self.gw.config.safety.opt_out,
        )
        for platform, error in errors.items():
            log.info("watch: %s: topic %r: %s", platform, topic, error)
        good = [o for o in found if o.score >= self.settings.min_score]
        won: set[str] = set()
        new: list[Opportunity] = []
        for platform in due:
            if platform in errors and not any(o.post.platform == platform for o in found):
                continue  # nothing heard: the seen list stays as it was
            mine = [o for o in good if o.post.platform == platform]
            fresh = await self._claim_topic(topic, platform, mine)
            if fresh is not None:
                won.add(platform)
                new += fresh
        await self._report(new, won, "topic")

    async def _claim_topic(
        self, topic: str, platform: str, good: list[Opportunity]
    ) -> list[Opportunity] | None:
        """The high-score posts not seen before (None: not ours to report). The first
        poll of a topic only learns what is there: a saved topic notices what is new."""
        claims, key = _Claims(self.gw, "watch:topic:"), f"{platform}:{topic}"
        old = await claims.aget(key)
        if key not in claims.read:
            return None  # the record is down: nothing claimed this period
        seen: list[str] = json.loads(old) if old else []
        fresh = [o for o in good if o.post.id not in seen]
        if old is not None and not fresh:
            return None
        await claims.aset(key, json.dumps([*seen, *(o.post.id for o in fresh)][-SEEN_IDS:]))
        if key not in claims.won:
            return None
        return fresh if old is not None else []

    async def _report(self, found: list[Opportunity], won: set[str], kind: FoundKind) -> None:
        by_platform: dict[str, list[Opportunity]] = {}
        for o in found:
            by_platform.setdefault(o.post.platform, []).append(o)
        for platform, items in by_platform.items():
            if platform not in won:
                continue
            dates = [t for t in map(_published, items) if t is not None]
            oldest = min(dates).strftime("%Y-%m-%dT%H:%M:%SZ") if dates else None
            if kind == "summoned":
                NOTICED[self.gw] = NOTICED.get(self.gw, 0) + len(items)
            await self.on_found(platform, kind, len(items), oldest)


def _published(found: Opportunity) -> datetime | None:
    """When a post was published, in UTC; None when its platform's string is not a time.
    That string is platform text (on some platforms the author's own): a report
    carries the time read from it, never the text."""
    try:
        when = datetime.fromisoformat(found.post.published_at or "")
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(UTC)


def notifying(gw: Gateway) -> OnFound:
    """The watcher's report: a line in the log and, with `[notify] urls`, one `found:` key
    per new item in the record's notices, which any notifier on the record tells (after a
    restart too, or from another replica). The watcher has claimed the period already, so
    no other process reports the same items."""

    async def found(platform: str, kind: FoundKind, count: int, oldest_at: str | None) -> None:
        await log_found(platform, kind, count, oldest_at)
        if not gw.config.notify.urls:
            return
        now = gw.wall()
        at = datetime.fromisoformat(oldest_at).timestamp() if oldest_at else now
        what = "summoned" if kind == "summoned" else "topic_post"  # its EventKind
        keys = [f"found:{what}:{platform}:{at:.0f}:{now:.3f}:{i}" for i in range(count)]
        try:
            await gw.records.run(StrikeStore.claim_notices, keys, now, "watch")
        except PlatformError as exc:
            log.warning("watch: what was found on %s will not be told (%s)", platform, exc.kind)

    return found


def start_watching(gw: Gateway, on_found: OnFound | None = None) -> Watched | None:
    """In a long-running process (the gateway's lifespan, `gwanjong console`, `gwanjong
    watch`): the watcher as a watched background task when `[watch] enabled`, else None.
    What it finds goes to the log and to `[notify]` (`notifying`) unless told otherwise."""
    if not gw.config.watch.enabled:
        return None
    task = Watched("the watcher")
    task.start(Watcher(gw, on_found or notifying(gw)).run_forever())
    return task
