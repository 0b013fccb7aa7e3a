"""Settling that a clock step cannot fool (fast tier, fake clocks): the settle window is
measured on the monotonic clock, a write turns `failed` only after absent read-backs
spaced over the whole window (their count kept in the record, across restarts), and a
wall clock stepped back never stretches a cool-down or the minimum interval."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, cast

import pytest

from gwanjong_gateway.config import parse
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules import policy
from gwanjong_gateway.rules.ledger import Strike, StrikeStatus
from gwanjong_gateway.strike.settle import MIN_READBACKS, ReadBack, Seen, Settler
from tests.fakes.clock import FakeClock
from tests.gateway.helpers import config_text
from tests.gateway.rows import strike_of, strike_row

pytestmark = pytest.mark.anyio

T = TypeVar("T")
WINDOW = 120.0


class InlineRecords:
    """`Records.run` without the worker thread: the store is called at once."""

    def __init__(self, store: StrikeStore) -> None:
        self.store = store

    async def run(self, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        return fn(self.store, *args, **kwargs)


class ScriptedSettler(Settler):
    """Reading back answers what the test says (absent unless told)."""

    seen = Seen.ABSENT

    async def read_back(self, row: Strike) -> ReadBack:
        return ReadBack(self.seen, "c1" if self.seen is Seen.FOUND else "")


def settler(
    tmp_path: Path, store: StrikeStore, clock: FakeClock, **settings: float
) -> ScriptedSettler:
    safety = {"safety": {"settle_window_s": WINDOW}}
    config = parse(config_text(tmp_path, ["devto"], settings=settings, tables=safety))
    records = cast(Records, InlineRecords(store))
    return ScriptedSettler(config, cast(Upstreams, None), records, clock=clock.time, mono=clock)


def started(tmp_path: Path, age: float = 0) -> tuple[StrikeStore, FakeClock, ScriptedSettler]:
    """An unsure write ``age`` seconds old by the wall clock, and a settler for it."""
    store = StrikeStore(tmp_path / "gwanjong.db")
    clock = FakeClock(50.0)
    strike_row(
        store,
        target="p1",
        status=StrikeStatus.UNKNOWN,
        reason="outcome unknown",
        now=clock.wall - age,
    )
    return store, clock, settler(tmp_path, store, clock)


def the_row(store: StrikeStore) -> Strike:
    row = store.get(1)
    assert row is not None
    return row


async def settle_until_done(s: Settler, store: StrikeStore, clock: FakeClock, step: float) -> float:
    """Read back every ``step`` seconds until the row settles; monotonic seconds taken."""
    start = clock.now
    for _ in range(10_000):
        if (await s.settle(the_row(store))).status != StrikeStatus.UNKNOWN:
            return clock.now - start
        clock.advance(step)
    raise AssertionError("never settled")


@pytest.mark.parametrize("step", [400, -3600])
async def test_a_wall_clock_step_neither_ends_nor_stretches_the_window(
    tmp_path: Path, step: float
) -> None:
    store, clock, s = started(tmp_path)
    clock.step_wall(step)  # NTP, a resumed VM: the row looks 400 s old, or an hour ahead
    taken = await settle_until_done(s, store, clock, step=1.0)
    row = the_row(store)
    assert row.status == StrikeStatus.FAILED
    assert WINDOW <= taken <= WINDOW + 5 and row.readbacks == MIN_READBACKS


async def test_replicas_reading_back_one_write_still_space_their_read_backs(
    tmp_path: Path,
) -> None:
    # Each counted its own spaced read-back into the one count: three replicas made three at
    # once, and a clock stepped forward then failed the write a third of the window in.
    store, clock, first = started(tmp_path)
    clock.step_wall(400)
    replicas = [first, settler(tmp_path, store, clock), settler(tmp_path, store, clock)]
    start = clock.now
    while the_row(store).status == StrikeStatus.UNKNOWN:
        for replica in replicas:
            await replica.settle(the_row(store))
        clock.advance(1.0)
    assert the_row(store).status == StrikeStatus.FAILED
    assert clock.now - start >= WINDOW


async def test_a_claim_another_replica_may_still_be_sending_waits_out_its_call(
    tmp_path: Path,
) -> None:
    # Its write may be on its way for call_timeout_s; this replica's wall clock runs ahead
    # of the claimer's, so the row looked past its call at once and failed 120 s in.
    store, clock, _ = started(tmp_path)
    store.update(1, status=StrikeStatus.PENDING, now=clock.wall)
    clock.step_wall(1000)
    s, start = settler(tmp_path, store, clock, call_timeout_s=300), clock.now
    while the_row(store).status != StrikeStatus.FAILED:
        await s.settle(the_row(store))
        clock.advance(1.0)
    assert clock.now - start >= 300 + 2 * WINDOW / 3  # its call, then spaced read-backs


async def test_reading_back_often_counts_only_spaced_read_backs(tmp_path: Path) -> None:
    store, clock, s = started(tmp_path, age=10_000)  # the wall says long past the window
    for _ in range(50):  # a model asking again and again within a few seconds
        assert (await s.settle(the_row(store))).status == StrikeStatus.UNKNOWN
        clock.advance(0.1)
    assert the_row(store).readbacks <= 1


async def test_read_backs_are_kept_across_a_restart(tmp_path: Path) -> None:
    store, clock, first = started(tmp_path)
    spacing = WINDOW / MIN_READBACKS
    for _ in range(int(spacing * (MIN_READBACKS - 1)) + 1):  # all but the last read-back
        await first.settle(the_row(store))
        clock.advance(1)
    assert the_row(store).readbacks == MIN_READBACKS - 1
    # Restart: a new process, a new monotonic clock, the wall clock far ahead.
    clock2 = FakeClock(7.0, wall=clock.wall + 10_000)
    taken = await settle_until_done(settler(tmp_path, store, clock2), store, clock2, 1.0)
    assert the_row(store).status == StrikeStatus.FAILED
    assert spacing <= taken < WINDOW  # only the missing read-back, spaced, not the whole window


async def test_a_late_write_found_settles_posted_whatever_the_clock(tmp_path: Path) -> None:
    store, clock, s = started(tmp_path)
    clock.step_wall(400)
    row = the_row(store)
    assert (await s.settle(row)).status == StrikeStatus.UNKNOWN
    s.seen = Seen.FOUND
    clock.advance(5)
    assert (await s.settle(row)).status == StrikeStatus.POSTED


def _last(created_at: float) -> Strike:
    return strike_of(created_at=created_at, updated_at=created_at)


def test_a_clock_stepped_back_does_not_stretch_refusals(monkeypatch: pytest.MonkeyPatch) -> None:
    mono = FakeClock(50.0)
    monkeypatch.setattr(policy, "FUTURE", policy.Future(mono))
    now = 1_800_000_000.0
    # The last write was made "an hour from now": the clock was stepped back an hour.
    wait = policy.min_interval(60, now + 3600, "devto", now)
    assert wait is not None and wait[1] == 60
    mono.advance(59)
    assert policy.min_interval(60, now + 3600, "devto", now + 59) is not None
    mono.advance(1)  # a minute of real time: the refusal is over, not an hour and a minute
    assert policy.min_interval(60, now + 3600, "devto", now + 60) is None
    day = 86400.0
    assert policy.author_cooldown(1, _last(now + 3600), "devto", "ann", now + 60)
    mono.advance(day - 1)
    assert policy.author_cooldown(1, _last(now + 3600), "devto", "ann", now + day)
    mono.advance(1)
    assert policy.author_cooldown(1, _last(now + 3600), "devto", "ann", now + day + 1) is None
    # Forward steps only end a refusal early, as real waiting would have.
    assert policy.min_interval(60, now, "devto", now + 400) is None
