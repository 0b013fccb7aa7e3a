"""A short-lived memory of write targets, so one write costs at most one target read.

The server kit's write tools validate first (which fetches the target to apply the
platform's rules) and then write (which needs the same target again); a gateway may also
call ``validate`` just before the write. Keeping what the last lookup saw for a few seconds
turns those reads into one. Only the validate and write paths use it: the model's own
reads (get_post, get_comments) always go to the platform.

Failures are never kept (a missing post is asked about again), our own write to a target
drops it (its counts and our like/reply state changed), and the clock is injectable so
tests advance time instead of sleeping. Lookups of one target at the same moment share one
read: many strikes on a target whose view just expired cost the platform one request.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

import anyio

T = TypeVar("T")

DEFAULT_TTL_S = 30.0
DEFAULT_MAX_SIZE = 256


class _Read(Generic[T]):
    """One read of a target under way: what it gave, for those who waited for it."""

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.value: tuple[T] | None = None
        self.error: Exception | None = None


class TargetCache(Generic[T]):
    """Target lookups by post id, each kept ``ttl_s`` seconds; the oldest go past ``max_size``."""

    def __init__(
        self,
        ttl_s: float = DEFAULT_TTL_S,
        max_size: int = DEFAULT_MAX_SIZE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl_s < 0 or max_size < 1:
            raise ValueError("ttl_s must be >= 0 and max_size >= 1")
        self.ttl_s = ttl_s
        self.max_size = max_size
        self._clock = clock
        self._items: OrderedDict[str, tuple[float, T]] = OrderedDict()
        self._reads: dict[str, _Read[T]] = {}

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: str) -> T | None:
        """The value kept for ``key`` if it is younger than the TTL, else None."""
        entry = self._items.get(key)
        if entry is None:
            return None
        stored_at, value = entry
        if self._clock() - stored_at >= self.ttl_s:
            del self._items[key]
            return None
        return value

    def put(self, key: str, value: T) -> None:
        self._items.pop(key, None)
        self._items[key] = (self._clock(), value)
        while len(self._items) > self.max_size:
            self._items.popitem(last=False)  # insertion order: the oldest lookup goes first

    def forget(self, *keys: str) -> None:
        """Drop ``keys``: called after our own write to those targets."""
        for key in keys:
            self._items.pop(key, None)
            self._reads.pop(key, None)  # a read begun before the write is not kept

    def clear(self) -> None:
        self._items.clear()
        self._reads.clear()

    async def fetch(self, key: str, load: Callable[[], Awaitable[T]]) -> T:
        """The kept value, or ``load()``'s (kept only when it returns; errors propagate),
        or that of the read of ``key`` already under way."""
        while (value := self.get(key)) is None and (other := self._reads.get(key)):
            await other.done.wait()
            if other.value is not None:
                return other.value[0]
            if other.error is not None:
                raise other.error
            # that read was cancelled with its caller: read it here
        if value is not None:
            return value
        mine = self._reads[key] = _Read[T]()
        try:
            value = await load()
            mine.value = (value,)
            if self._reads.get(key) is mine:  # not dropped meanwhile by our own write
                self.put(key, value)
            return value
        except Exception as exc:
            mine.error = exc
            raise
        finally:
            if self._reads.get(key) is mine:
                del self._reads[key]
            mine.done.set()
