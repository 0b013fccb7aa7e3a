"""TargetCache: kept for the TTL on an injected clock, bounded, dropped on our writes, and
never keeping a failure."""

from __future__ import annotations

import anyio
import pytest

from gwanjong_shared.contract import errors
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.kit.target_cache import TargetCache
from tests.fakes.clock import FakeClock

pytestmark = pytest.mark.anyio


class Loader:
    """Counts loads; fails while ``missing`` is set."""

    def __init__(self) -> None:
        self.calls = 0
        self.missing = False

    async def __call__(self) -> str:
        self.calls += 1
        if self.missing:
            raise errors.not_found("No such post. Use an id from search.")
        return f"view-{self.calls}"


async def test_a_lookup_is_kept_for_the_ttl_then_read_again() -> None:
    clock, load = FakeClock(), Loader()
    cache: TargetCache[str] = TargetCache(ttl_s=30, clock=clock)
    assert await cache.fetch("p1", load) == "view-1"
    clock.advance(29.9)
    assert await cache.fetch("p1", load) == "view-1"
    assert load.calls == 1
    clock.advance(0.1)
    assert await cache.fetch("p1", load) == "view-2"
    assert load.calls == 2


async def test_our_write_drops_the_target() -> None:
    load = Loader()
    cache: TargetCache[str] = TargetCache(clock=FakeClock())
    assert await cache.fetch("a", load) == "view-1"
    assert await cache.fetch("b", load) == "view-2"  # keys are separate
    cache.forget("a", "never-seen")
    assert await cache.fetch("a", load) == "view-3"
    assert await cache.fetch("b", load) == "view-2"


async def test_failures_are_not_kept() -> None:
    load = Loader()
    load.missing = True
    cache: TargetCache[str] = TargetCache(clock=FakeClock())
    for _ in range(2):
        with pytest.raises(PlatformError):
            await cache.fetch("gone", load)
    assert load.calls == 2 and len(cache) == 0
    load.missing = False
    assert await cache.fetch("gone", load) == "view-3"


def test_size_is_bounded_oldest_first() -> None:
    clock = FakeClock()
    cache: TargetCache[int] = TargetCache(max_size=3, clock=clock)
    for n in range(5):
        cache.put(f"k{n}", n)
        clock.advance(1)
    assert len(cache) == 3
    assert [cache.get(f"k{n}") for n in range(5)] == [None, None, 2, 3, 4]
    cache.put("k2", 20)  # stored again: now the newest
    cache.put("k5", 5)
    assert cache.get("k3") is None and cache.get("k2") == 20


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        TargetCache(max_size=0)
    with pytest.raises(ValueError):
        TargetCache(ttl_s=-1)


class Gated(Loader):
    """A Loader whose reads wait until ``go`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.go = anyio.Event()

    async def __call__(self) -> str:
        await self.go.wait()
        return await super().__call__()


@pytest.mark.parametrize("missing", [False, True])
async def test_lookups_at_the_same_moment_share_one_read(missing: bool) -> None:
    load, got = Gated(), list[str]()
    load.missing = missing
    cache: TargetCache[str] = TargetCache(clock=FakeClock())

    async def fetch() -> None:
        try:
            got.append(await cache.fetch("p1", load))
        except PlatformError as exc:
            got.append(exc.kind)

    async with anyio.create_task_group() as tg:
        for _ in range(3):
            tg.start_soon(fetch)
        await anyio.wait_all_tasks_blocked()
        load.go.set()
    assert load.calls == 1
    assert got == (["not_found"] * 3 if missing else ["view-1"] * 3)
    load.missing = False
    assert await cache.fetch("p1", load) == ("view-2" if missing else "view-1")  # no failure kept


async def test_a_read_cancelled_with_its_caller_is_read_again_by_the_next() -> None:
    load = Gated()
    cache: TargetCache[str] = TargetCache(clock=FakeClock())
    async with anyio.create_task_group() as tg:
        first = anyio.CancelScope()

        async def cancelled() -> None:
            with first:
                await cache.fetch("p1", load)

        tg.start_soon(cancelled)
        await anyio.wait_all_tasks_blocked()
        tg.start_soon(cache.fetch, "p1", load)
        await anyio.wait_all_tasks_blocked()
        first.cancel()
        await anyio.wait_all_tasks_blocked()
        load.go.set()
    assert load.calls == 1 and await cache.fetch("p1", load) == "view-1"


async def test_a_read_begun_before_our_write_is_not_kept() -> None:
    load = Gated()
    cache: TargetCache[str] = TargetCache(clock=FakeClock())
    async with anyio.create_task_group() as tg:
        tg.start_soon(cache.fetch, "p1", load)
        await anyio.wait_all_tasks_blocked()
        cache.forget("p1")  # our write lands while the read is under way
        load.go.set()
    assert await cache.fetch("p1", load) == "view-2"
