"""Per-client state buckets with idle expiry, a size cap and one lock per client."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import anyio

from gwanjong_shared.pipeline.state import PipelineState

S = TypeVar("S", bound=PipelineState)

DEFAULT_TTL_SECONDS = 3600.0
DEFAULT_MAX_CLIENTS = 1000

# Buckets whose lock the current task (or the task that spawned it) already holds. A
# pipeline tool that calls another pipeline tool of the same client must not wait on itself.
_held: ContextVar[frozenset[tuple[int, str]]] = ContextVar("pipeline_held", default=frozenset())


@dataclass(eq=False)
class Bucket(Generic[S]):
    """One client's state, its lock, and bookkeeping for eviction."""

    state: S
    last_used: float
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    users: int = 0  # calls in flight; a busy bucket is never evicted under them


class StateStore(Generic[S]):
    """Maps client keys to state, forgetting idle clients.

    A bucket idle for longer than `ttl` seconds is dropped, and when more than
    `max_clients` buckets exist the least recently used idle ones go first. Sweeping is
    lazy (on every access) so no background task is needed; `sweep()` can also be called
    explicitly. `clock` is injectable so tests can move time.
    """

    def __init__(
        self,
        factory: Callable[[], S],
        *,
        ttl: float = DEFAULT_TTL_SECONDS,
        max_clients: int = DEFAULT_MAX_CLIENTS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl <= 0:
            raise ValueError("ttl must be positive")
        if max_clients < 1:
            raise ValueError("max_clients must be at least 1")
        self._factory = factory
        self.ttl = ttl
        self.max_clients = max_clients
        self._clock = clock
        # Ordered oldest-used first, so expiry and LRU eviction scan from the front.
        self._buckets: OrderedDict[str, Bucket[S]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def __contains__(self, key: object) -> bool:
        return key in self._buckets

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def keys(self) -> list[str]:
        """Live client keys, least recently used first."""
        return list(self._buckets)

    def bucket(self, key: str) -> Bucket[S]:
        """The bucket for `key`, created if needed; marks it as just used."""
        now = self._clock()
        self._expire(now)
        found = self._buckets.get(key)
        if found is None:
            self._make_room(self.max_clients - 1)
            found = Bucket(state=self._factory(), last_used=now)
            self._buckets[key] = found
        else:
            self._touch(key, found, now)
        return found

    def peek(self, key: str) -> S | None:
        """The state for `key` if it exists and has not expired; never creates one."""
        now = self._clock()
        self._expire(now)
        found = self._buckets.get(key)
        if found is None:
            return None
        self._touch(key, found, now)
        return found.state

    def drop(self, key: str) -> bool:
        """Forget `key` now; True if it existed."""
        return self._buckets.pop(key, None) is not None

    def sweep(self) -> int:
        """Drop expired and surplus buckets; returns how many went."""
        before = len(self._buckets)
        self._expire(self._clock())
        self._make_room(self.max_clients)
        return before - len(self._buckets)

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[S]:
        """Use `key`'s state exclusively: calls for one client run one at a time."""
        bucket = self.bucket(key)
        marker = (id(self), key)
        bucket.users += 1
        try:
            if marker in _held.get():
                yield bucket.state  # re-entered from inside a call that holds the lock
                return
            async with bucket.lock:
                token = _held.set(_held.get() | {marker})
                try:
                    yield bucket.state
                finally:
                    _held.reset(token)
        finally:
            bucket.users -= 1
            # Idle time counts from the end of the last call, not its start.
            if self._buckets.get(key) is bucket:
                self._touch(key, bucket, self._clock())

    def _touch(self, key: str, bucket: Bucket[S], now: float) -> None:
        bucket.last_used = now
        self._buckets.move_to_end(key)

    def _expire(self, now: float) -> None:
        for key, bucket in list(self._buckets.items()):
            if now - bucket.last_used < self.ttl:
                break  # everything after this was used more recently
            if bucket.users == 0:
                del self._buckets[key]

    def _make_room(self, limit: int) -> None:
        if len(self._buckets) <= limit:
            return
        for key, bucket in list(self._buckets.items()):
            if len(self._buckets) <= limit:
                break
            if bucket.users == 0:
                del self._buckets[key]
