"""Settling writes whose outcome is unknown, by reading the platform back
(docs/operate/durability.md).

An unsure row stays `unknown`, holding its target, and is read back with backoff. It turns
`failed` only after `MIN_READBACKS` absent read-backs spaced over `settle_window_s`,
measured on the monotonic clock (and counted in the record), so no clock step or restart
can shorten the window. One read-back at a time per row, across replicas: the lease
(`StrikeStore.take_settling`). Its span links to the strike's trace kept in the row.
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

import anyio
from opentelemetry import trace
from opentelemetry.trace import Link, Span, SpanContext, TraceFlags

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.platforms.client import PlatformClient
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import Strike, StrikeAction, StrikeStatus
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.kit.once import same_account
from gwanjong_shared.kit.tracing import TRACER

log = logging.getLogger(__name__)

FIRST_DELAY_S = 2.0
MAX_DELAY_S = 30.0
#: a `pending` row younger than the call timeout plus this may still be in flight
IN_FLIGHT_MARGIN_S = 5.0
IDLE_POLL_S = 5.0
#: how long a lost claim is remembered (its abandoned call is long over by then)
UNSENT_KEPT_S = 3600.0
#: absent read-backs, spaced over the whole window, before a write counts as not written
MIN_READBACKS = 3
#: the span of one read-back, and the attribute naming its record
SPAN = "gwanjong.settle"
RECORD_ID = "gwanjong.record_id"


def strike_trace() -> dict[str, str]:
    """The current span's trace context, as the claimed row keeps it (W3C hex; nothing
    when no trace is recorded): what the settlement's span links to."""
    ctx = trace.get_current_span().get_span_context()
    if not ctx.is_valid:
        return {}
    return {"trace_id": format(ctx.trace_id, "032x"), "span_id": format(ctx.span_id, "016x")}


def _links(row: Strike) -> list[Link]:
    try:
        ctx = SpanContext(
            int(row.trace_id, 16),
            int(row.span_id, 16),
            is_remote=True,
            trace_flags=TraceFlags(TraceFlags.SAMPLED),
        )
    except ValueError:  # no trace kept (or not hex): nothing to link
        return []
    return [Link(ctx, {RECORD_ID: row.id})] if ctx.is_valid else []


class Seen(StrEnum):
    FOUND = "found"
    ABSENT = "absent"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class ReadBack:
    """What reading the platform back showed about one write."""

    seen: Seen
    id: str = ""
    url: str = ""


class Settler:
    def __init__(
        self,
        config: GatewayConfig,
        upstreams: Upstreams,
        records: Records,
        clock: Callable[[], float] = time.time,
        mono: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.upstreams = upstreams
        self.records = records
        self.clock = clock  # the wall clock: what the record stores
        self.mono = mono  # what the window is measured with
        self._next: dict[int, tuple[float, float]] = {}  # record -> (next check, delay), mono
        # record -> (mono when first seen, its wall age then, mono of the last counted
        # read-back, and the record's count then: no other replica's since, or not counted)
        self._seen: dict[int, tuple[float, float, float, int]] = {}
        #: `pending` rows whose write call returned here, though its outcome could not be
        #: recorded: no longer in flight, so read back as soon as the record answers
        self._returned: set[int] = set()
        #: claims whose call failed here, by (intent key, created_at): the answer was lost,
        #: but the row may still commit (a frozen or slow database finishes it later).
        #: This gateway never sends such a claim, so it is failed as soon as it is seen.
        self._unsent: dict[tuple[str, float], float] = {}
        #: who takes a row's lease: this process, and a number per read-back (two calls of
        #: one process exclude each other too)
        self.holder = f"{socket.gethostname()}:{os.getpid()}"
        self._takes: Iterator[int] = itertools.count(1)
        #: rows this process moved out of unsure (what the loop's "settled" line counts)
        self.moved = 0

    @property
    def window(self) -> float:
        return self.config.safety.settle_window_s

    @property
    def lease_s(self) -> float:
        """How long one read-back holds its row: its two platform calls (the account,
        then the read) and the record writes after them, each at their longest."""
        return 2 * self.config.gateway.call_timeout_s + 2 * self.config.store.call_deadline_s

    @property
    def spacing(self) -> float:
        """The least monotonic time between two counted read-backs."""
        return self.window / MIN_READBACKS

    def _first_sight(self, row: Strike) -> tuple[float, float, float, int]:
        if row.id not in self._seen:
            now = self.mono()
            wall_age = max(0.0, self.clock() - row.created_at)
            self._seen[row.id] = (now, wall_age, now, row.readbacks)
        return self._seen[row.id]

    def age(self, row: Strike) -> float:
        """Seconds since the write was sent: monotonic since this process first saw the
        row, plus how old the wall clock said it was then (a backwards step counts 0)."""
        seen, wall_age, _, _ = self._first_sight(row)
        return self.mono() - seen + wall_age

    def next_check_in(self, row: Strike) -> int:
        """Seconds until this row is read back again (what the model is told)."""
        now = self.mono()
        if self.in_flight(row):
            due = now - self._flying(row) + self.config.gateway.call_timeout_s + IN_FLIGHT_MARGIN_S
        else:
            due, _ = self._next.get(row.id, (now, 0.0))
        return max(1, math.ceil(due - now))

    def _schedule(self, row: Strike) -> None:
        _, delay = self._next.get(row.id, (0.0, FIRST_DELAY_S / 2))
        delay = min(MAX_DELAY_S, delay * 2)
        now = self.mono()
        due = now + delay
        end = now - self.age(row) + self.window
        if now < end < due:  # never overshoot the window's end by a whole backoff step
            due = end + 0.1
        if row.readbacks < MIN_READBACKS:  # nor the moment the next read-back counts
            due = min(due, max(now, self._seen[row.id][2] + self.spacing) + 0.1)
        self._next[row.id] = (due, delay)

    def returned(self, row_id: int) -> None:
        """The write of this claim was sent and its call is over (its outcome could not be
        recorded): the settle loop reads it back at once, not after the in-flight wait."""
        self._returned.add(row_id)

    def unsent(self, intent_key: str, created_at: float) -> None:
        """The claim call for this row failed (its answer never came): nothing was sent."""
        now = self.mono()
        for key, when in list(self._unsent.items()):  # an abandoned call is over in an hour
            if now - when > UNSENT_KEPT_S:
                del self._unsent[key]
        self._unsent[(intent_key, created_at)] = now

    def _never_sent(self, row: Strike) -> bool:
        return (
            row.status == StrikeStatus.PENDING and (row.intent_key, row.created_at) in self._unsent
        )

    def in_flight(self, row: Strike) -> bool:
        """A fresh `pending` row may be another call's write still on its way."""
        if row.id in self._returned:
            return False
        young = self._flying(row) < self.config.gateway.call_timeout_s + IN_FLIGHT_MARGIN_S
        return row.status == StrikeStatus.PENDING and young

    def _flying(self, row: Strike) -> float:
        """How long its write may have been on its way: its age, or how long this process
        has seen it when less (another replica's wall clock behind ours must not make a
        claim it is still sending look old)."""
        return min(self.age(row), self.mono() - self._first_sight(row)[0])

    async def _count_absent(self, row: Strike) -> Strike:
        """Count this absent read-back if it is spaced far enough from the last counted one,
        here or on another replica (one counted since this one's last is compared away)."""
        seen, wall_age, last, counted = self._first_sight(row)
        now = self.mono()
        if row.readbacks >= MIN_READBACKS or now - last < self.spacing:
            return row
        count = await self.records.run(StrikeStore.count_readback, row.id, counted)
        self._seen[row.id] = (seen, wall_age, now, count or row.readbacks)
        return replace(row, readbacks=count) if count else row

    async def settle(self, row: Strike) -> Strike:
        """Read back once; the row as it now stands (posted, failed, or still unknown)."""
        if self._never_sent(row):
            log.info("record %s: a claim whose answer was lost; never sent", row.id)
            return await self._move(
                row,
                StrikeStatus.FAILED,
                reason="the claim was recorded after its call had given up (the strike record "
                "did not answer in time); it was never sent: not written",
                policy=[*row.policy, "never sent: the claim's answer was lost"],
            )
        if row.status not in (StrikeStatus.PENDING, StrikeStatus.UNKNOWN) or self.in_flight(row):
            return row
        by = f"{self.holder}:{next(self._takes)}"
        taken = await self.records.run(
            StrikeStore.take_settling, row.id, by, self.clock(), self.lease_s
        )
        if taken is None:  # another read-back holds it (or it is settled): not this round
            log.debug("record %s: being read back elsewhere; skipped", row.id)
            _, delay = self._next.get(row.id, (0.0, FIRST_DELAY_S / 2))
            self._next[row.id] = (self.mono() + FIRST_DELAY_S, delay)  # not every loop pass
            return await self.records.run(StrikeStore.get, row.id) or row
        try:
            with self._span(taken):
                return await self._read_back_and_move(taken)
        finally:
            try:
                await self.records.run(StrikeStore.release_settling, row.id, by)
            except PlatformError as exc:  # the lease ends by itself
                log.info("record %s: lease not released: %s", row.id, exc)

    def _span(self, row: Strike) -> AbstractContextManager[Span]:
        """The read-back's span, linked to the strike's trace (a no-op without tracing)."""
        return trace.get_tracer(TRACER).start_as_current_span(
            SPAN,
            links=_links(row),
            attributes={RECORD_ID: row.id, "gwanjong.platform": row.platform},
        )

    async def _read_back_and_move(self, row: Strike) -> Strike:
        """Read back once (this process holds the row's lease) and move the row."""
        found = await self.read_back(row)
        if found.seen is Seen.FOUND:
            return await self._move(
                row,
                StrikeStatus.POSTED,
                result_id=found.id,
                result_url=found.url,
                policy=[*row.policy, "read-back: found on the platform"],
            )
        if found.seen is Seen.ABSENT:
            row = await self._count_absent(row)
        past = self.age(row) >= self.window
        if found.seen is Seen.ABSENT and past and row.readbacks >= MIN_READBACKS:
            return await self._move(
                row,
                StrikeStatus.FAILED,
                reason=f"read-back: still not on the platform {self.window:g} s after sending; not written",
                policy=[*row.policy, "read-back: absent after the settle window"],
            )
        person = found.seen is Seen.UNKNOWN and past
        if person:
            reason = (
                "the platform cannot be read back for this; a person must check and run "
                f"`gwanjong history --resolve {row.id} --as posted|failed`"
            )
        else:
            reason = row.reason or "outcome unknown: the platform did not confirm the write"
        self._schedule(row)
        if row.status == StrikeStatus.UNKNOWN and row.reason == reason:
            return row
        if person:
            return await self._move(row, StrikeStatus.UNKNOWN, reason=reason, needs_person=1)
        return await self._move(row, StrikeStatus.UNKNOWN, reason=reason)

    async def settle_or_keep(self, row: Strike) -> Strike:
        """`settle`, or the row as it stands when the record cannot take the outcome now
        (busy, full, unreachable): the claim still holds its target, and the loop retries."""
        try:
            return await self.settle(row)
        except PlatformError as exc:
            log.info("settling record %s: %s", row.id, exc)
            return row

    async def _move(self, row: Strike, status: StrikeStatus, **fields: Any) -> Strike:
        moved = await self.records.run(
            StrikeStore.settle, row.id, status, now=self.clock(), **fields
        )
        if status != StrikeStatus.UNKNOWN:
            self._next.pop(row.id, None)
            self._seen.pop(row.id, None)
            self._returned.discard(row.id)
            self._unsent.pop((row.intent_key, row.created_at), None)
        if moved is None:  # another call or gateway settled it first: not this one's to log
            latest = await self.records.run(StrikeStore.get, row.id)
            return latest or row
        if status != StrikeStatus.UNKNOWN:
            self.moved += 1
            why = moved.policy[-1] if moved.policy else moved.reason
            log.info("record %s: settled as %s here (%s)", row.id, status, why)
        return moved

    async def settle_due(self) -> int:
        """Read back every unsettled row whose next check is due; how many this process
        settled (a row another replica settled meanwhile is not counted)."""
        before = self.moved
        for row in await self.records.run(StrikeStore.unsettled):
            due, _ = self._next.get(row.id, (0.0, 0.0))
            if due <= self.mono():
                await self.settle_or_keep(row)  # the record is busy: next round
        return self.moved - before

    async def run_forever(self) -> None:
        """The background loop the gateway's lifespan starts (also settles a crash's leftovers)."""
        while True:
            try:
                settled = await self.settle_due()
                if settled:
                    log.info("settled %d unsure writes by reading back", settled)
            except PlatformError as exc:
                log.info("settle loop: %s", exc)
            # Wake for the next due check; look for new unsure rows every few seconds.
            waits = [due - self.mono() for due, _ in self._next.values()]
            await anyio.sleep(max(0.2, min([IDLE_POLL_S, *waits])))

    # -- read-back ------------------------------------------------------------------------

    async def read_back(self, row: Strike) -> ReadBack:
        """Whether the write is on the platform: found (with its id and url), absent, or
        unknown (the platform could not be asked, or cannot show it)."""
        if row.action not in (StrikeAction.COMMENT, StrikeAction.POST):
            return ReadBack(Seen.UNKNOWN)  # votes cannot be read back through the contract
        client = PlatformClient(self.upstreams, row.platform)
        try:
            now = (await client.capabilities()).account
            # as the account it went out as, and (a key saved between the claim and the
            # send) the one signed in now: a write by either is ours
            found = await client.find_written(row, *{row.account or now, now})
        except PlatformError:
            return ReadBack(Seen.UNKNOWN)
        if found:
            return ReadBack(Seen.FOUND, found.id, found.url)
        if not row.account or not same_account(row.account, now or ""):
            # read as another account (another key, another replica's), or as one the
            # write cannot be proved to have gone out as (the platform named none at the
            # claim): a platform may show a write only to its maker, so absent proves nothing
            return ReadBack(Seen.UNKNOWN)
        return ReadBack(Seen.ABSENT)
