"""The notifier: collects events (the record's scan, the watcher's finds in it, and
`publish` for other producers), and once per `[notify] every_s`, outside quiet hours,
claims in the record what no process told yet and sends one message per channel in the
background. A channel that is slow or down never delays anything else: the loop only
starts deliveries."""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import anyio
from anyio.abc import TaskGroup

from gwanjong_gateway.config import ConfigError, GatewayConfig
from gwanjong_gateway.config.away import NotifySection
from gwanjong_gateway.config.load import expand, read_dotenv
from gwanjong_gateway.notify.deliver import Retry, Send, apprise_send, deliver
from gwanjong_gateway.notify.events import LATE, Event, EventKind, Message, compose
from gwanjong_gateway.notify.redact import shown
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_shared.contract.errors import PlatformError

log = logging.getLogger(__name__)


def resolve_urls(config: GatewayConfig, environ: dict[str, str] | None = None) -> list[str]:
    """`[notify] urls` with `${VAR}` expanded. Raises ConfigError (naming the variable,
    never a value)."""
    env = {**read_dotenv(config.state_dir / ".env"), **(os.environ if environ is None else environ)}
    urls = [expand(url, env) for url in config.notify.urls]
    for url in urls:
        if "://" not in url:
            raise ConfigError("[notify] urls: a ${VAR} holds no Apprise URL (scheme://…)")
    return urls


def quiet(section: NotifySection, now: float) -> bool:
    """Inside `[notify] quiet_hours` at ``now`` (in its time zone)."""
    if not section.quiet_hours:
        return False
    zone = ZoneInfo(section.timezone) if section.timezone else None  # None: the machine's
    # zero-padded "HH:MM" (the config checks the span's form) compares as text
    at = datetime.fromtimestamp(now, zone).strftime("%H:%M")
    start, end = section.quiet_hours.split("-")
    if start <= end:
        return start <= at < end
    return at >= start or at < end  # across midnight


#: how long a notice is remembered: longer than anything it names can wait (a hand-off
#: waits a year at most)
KEEP_S = 400 * 86400.0
#: how long what a watcher found waits to be told: a period and quiet hours at most;
#: what a channel could not take is kept as long, each failed try anew
KEEP_FOUND_S = 2 * 86400.0
#: rows a read of the record takes at most
PAGE = 500


def channel_id(entry: str) -> str:
    """A channel's name in the record: a hash of its entry in `[notify] urls` as written,
    `${VAR}`s unexpanded, so a rotated token is the same channel (an entry may carry
    secrets)."""
    return hashlib.sha256(entry.encode()).hexdigest()[:16]


class Notifier:
    def __init__(
        self,
        section: NotifySection,
        records: Records,
        urls: list[str],
        base_url: str = "",
        *,
        clock: Callable[[], float] = time.time,
        send: Send = apprise_send,
        retry: Retry | None = None,
        sources: Sequence[Callable[[], Awaitable[list[Event]]]] = (),
        handoff_expire_after_s: float = 7 * 86400.0,
    ) -> None:
        """``urls``: `section.urls` with their `${VAR}`s expanded, in order;
        ``handoff_expire_after_s``: `[review]`'s."""
        self.section = section
        self.records = records
        self.urls = urls
        written = section.urls if len(section.urls) == len(urls) else urls
        self._ids = {url: channel_id(w) for url, w in zip(urls, written, strict=True)}
        self.handoff_wait_s = handoff_expire_after_s
        self.base_url = base_url
        self.clock = clock
        self.send = send
        self.retry = retry or Retry()
        #: more events each scan, known outside the record (`sources.GatewayEvents`)
        self.sources = list(sources)
        self.kinds = set(section.events) or set(EventKind)
        self.me = f"{socket.gethostname()}:{os.getpid()}"
        self._scanned: dict[str, Event] = {}
        self._published: dict[str, Event] = {}
        self._next_at = 0.0

    @property
    def channels(self) -> list[str]:
        """The channels as they may be shown: scheme and host."""
        return [shown(u) for u in self.urls]

    def publish(self, event: Event) -> None:
        """Hand an event over (never blocks, never fails): sent with the next batch,
        unless the person caused it themselves or `[notify] events` leaves its kind out."""
        if event.by_person or event.kind not in self.kinds:
            return
        self._published.setdefault(event.notice_key, event)

    async def scan(self) -> None:
        """What waits in the record now: pending approvals (and those about to expire),
        open hand-offs, unsure writes only a person can settle, platforms whose writes are
        paused; approvals and hand-offs that
        expired within `KEEP_FOUND_S` (told only if their waiting never was: `tick`)."""
        now = self.clock()
        # a hand-off handed over before `handed` has expired
        since, handed = now - KEEP_FOUND_S, now - self.handoff_wait_s
        try:
            approvals = await self._every(StrikeStore.approvals, now, True, None)
            handoffs = await self._every(StrikeStore.open_handoffs, None)
            # swept or not yet: a sweep runs only before a write or a read of the queue
            handoffs += await self.records.run(
                StrikeStore.expired_handoffs, since - self.handoff_wait_s, handed
            )
            unsure = [r for r in await self.records.run(StrikeStore.unsettled) if r.needs_person]
            health = await self.records.run(StrikeStore.health_rows)
            watched = await self.records.run(StrikeStore.found, now - KEEP_FOUND_S)
            expired = await self.records.run(StrikeStore.expired_between, since, now)
        except PlatformError as exc:  # the record is down: try again next period
            log.warning("notify: the record is unavailable (%s)", exc.kind)
            return
        found: list[Event] = []
        # told before it expires: by the last message before then, when periods are longer
        soon = max(self.section.expiring_within_s, self.section.every_s)
        for a in [*approvals, *expired]:
            kinds = [EventKind.APPROVAL_WAITING]
            if a.expires_at <= now:  # told only where its waiting never was (`tick`)
                kinds = [EventKind.APPROVAL_EXPIRED]
            elif a.expires_at - now <= soon:
                kinds.append(EventKind.APPROVAL_EXPIRING)
            found += [
                Event(kind=k, key=f"a{a.id}", platform=a.platform, at=a.created_at) for k in kinds
            ]
        for h in handoffs:
            kind = EventKind.HANDOFF_EXPIRED if h.created_at < handed else EventKind.HANDOFF_WAITING
            found.append(Event(kind=kind, key=f"h{h.id}", platform=h.platform, at=h.created_at))
        found += [
            Event(
                kind=EventKind.UNSURE_WAITING, key=f"u{r.id}", platform=r.platform, at=r.created_at
            )
            for r in unsure
        ]
        found += [
            Event(kind=EventKind.WRITES_PAUSED, key=f"{p}:{changed:.0f}", platform=p, at=changed)
            for p, _failures, paused, changed in health
            if paused
        ]
        for key in watched:  # "found:<kind>:<platform>:<at>:…" (watch.watcher.notifying)
            _found, kind, platform, at, *_ = key.split(":")
            found.append(Event(kind=EventKind(kind), key=key, platform=platform, at=float(at)))
        for source in self.sources:
            found += await source()
        self._scanned = {e.notice_key: e for e in found if e.kind in self.kinds}

    async def _every(self, read: Callable[..., list[Any]], *args: Any) -> list[Any]:
        """Every row of a read, oldest first, a page at a time (never a cap)."""
        rows: list[Any] = []
        while page := await self.records.run(read, *args, PAGE, rows[-1].id if rows else 0):
            rows += page
            if len(page) < PAGE:
                break
        return rows

    def due(self) -> bool:
        """A message may go out now (the period passed, not quiet hours)."""
        now = self.clock()
        return bool(self.urls) and now >= self._next_at and not quiet(self.section, now)

    async def tick(self) -> dict[str, Message]:
        """The message due now for each channel, claimed in the record: what is new, and
        what that channel could not take before (its `owed:` keys); none when nothing is
        due (too soon, quiet hours, nothing new, or another replica sends this period's)."""
        now = self.clock()
        if not self.due():
            return {}
        pending = {**self._scanned, **self._published}
        # what expired is new only while its waiting was never told
        told_as = {
            k: f"{LATE[e.kind]}:{e.key}" if e.kind in LATE else k for k, e in pending.items()
        }
        was = {told_as[k]: e for k, e in pending.items()}  # what an owed waiting is now
        try:
            free = set(await self.records.run(StrikeStore.unclaimed, [*pending, *told_as.values()]))
            fresh = [k for k in pending if k in free and told_as[k] in free]
            for key in set(pending) - set(fresh):  # told before (by us, or another process)
                self._published.pop(key, None)
            owed = await self.records.run(StrikeStore.found, now - KEEP_FOUND_S, "owed:")
            if not fresh and not owed:
                return {}
            period = f"period:{int(now // self.section.every_s)}"
            self._next_at = now + self.section.every_s
            if not await self.records.run(StrikeStore.claim_notices, [period], now, self.me):
                return {}  # another replica sends this period's message
            won = await self.records.run(StrikeStore.claim_notices, fresh, now, self.me)
            owed = await self.records.run(StrikeStore.take_notices, owed)
            await self.records.run(StrikeStore.prune_notices, now - KEEP_S)
        except PlatformError as exc:
            log.warning("notify: the record is unavailable (%s); trying next period", exc.kind)
            return {}
        for key in won:
            self._published.pop(key, None)
        missed: dict[str, list[str]] = {}  # "owed:<channel id>:<notice key>" by channel
        for k in owed:
            _owed, channel, key = k.split(":", 2)
            missed.setdefault(channel, []).append(key)
        self._drop(missed)
        messages: dict[str, Message] = {}
        for url in self.urls:
            keys = dict.fromkeys([*won, *missed.get(self._ids[url], ())])
            # what it missed, if it still waits (or expired meanwhile: then said so)
            events = {e.notice_key: e for k in keys if (e := pending.get(k) or was.get(k))}
            if events:
                messages[url] = compose(period, list(events.values()), now, self.base_url)
        if not messages:
            return {}
        told = {k: pending[k] for m in messages.values() for k in m.told}
        whole = compose(period, list(told.values()), now, self.base_url)
        await self._note(period, whole.summary, 0.0, "")
        return {url: replace(m, summary=whole.summary) for url, m in messages.items()}

    def _drop(self, missed: dict[str, list[str]]) -> None:
        """What was owed to channels no longer in `[notify] urls` is dropped, with a line
        (naming no URL: secrets). Rows keyed by a channel's expanded URL (as before)
        are still its own while that URL is the same."""
        for url, name in self._ids.items():
            if (old := channel_id(url)) != name and old in missed:
                missed.setdefault(name, []).extend(missed.pop(old))
        gone = [keys for channel, keys in missed.items() if channel not in self._ids.values()]
        if gone:
            log.warning(
                "notify: dropped what %d channel(s) no longer in [notify] urls missed (%d events)",
                len(gone),
                sum(map(len, gone)),
            )

    async def deliver(self, messages: dict[str, Message]) -> str:
        """Send each channel its message; note how it went in the record, and what a
        channel is known not to have (given up, or stopped between tries), to send it
        again with its next message."""
        missed: dict[str, str] = {}
        try:
            await deliver(messages, self.send, self.retry, missed)
        finally:
            owed = [
                f"owed:{self._ids[u]}:{k}"
                for u, m in messages.items()
                if u in missed
                for k in m.told
            ]
            with anyio.CancelScope(shield=True):  # a stop between tries, too
                missing = "what a channel missed will not be sent again"
                await self._try(missing, StrikeStore.claim_notices, owed, self.clock(), self.me)
        error = "; ".join(missed[u] for u in messages if u in missed)
        [first, *_] = messages.values()
        await self._note(first.key, first.summary, self.clock(), error)
        return error

    async def _note(self, key: str, summary: str, sent_at: float, error: str) -> None:
        args = (key, summary, sent_at, error)
        await self._try("could not note the message in the record", StrikeStore.note_message, *args)

    async def _try(self, failing: str, write: Callable[..., Any], *args: Any) -> None:
        """A write to the record that may fail (the record is down): a line in the log."""
        try:
            await self.records.run(write, *args)
        except PlatformError as exc:
            log.warning("notify: %s (%s)", failing, exc.kind)

    async def run(self, tg: TaskGroup, poll_s: float = 10.0) -> None:
        """Forever: scan, and start each due message's delivery beside this loop."""
        log.info("notify: sending to %s every %g s", ", ".join(self.channels), self.section.every_s)
        while True:
            if self.due():  # the record is read only when a message may go out
                await self.scan()
                if messages := await self.tick():
                    tg.start_soon(self.deliver, messages)
            await anyio.sleep(min(poll_s, self.section.every_s))
