"""TargetCache: kept for the TTL on an injected clock, bounded, dropped on our writes, and
never keeping a failure."""

from __future__ import annotations

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


async def test_keys_are_separate() -> None:
    load = Loader()
    cache: TargetCache[str] = TargetCache(clock=FakeClock())
    assert await cache.fetch("a", load) == "view-1"
    assert await cache.fetch("b", load) == "view-2"
    assert await cache.fetch("a", load) == "view-1"


async def test_our_write_drops_the_target() -> None:
    load = Loader()
    cache: TargetCache[str] = TargetCache(clock=FakeClock())
    await cache.fetch("a", load)
    await cache.fetch("b", load)
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
