"""Per-client state buckets with idle expiry, a size cap and one lock per client."""

from __future__ import annotations

import time
from collections import Counter, OrderedDict
from collections.abc import AsyncGenerator, Callable, Iterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import anyio

from gwanjong_shared.pipeline.state import PipelineState

S = TypeVar("S", bound=PipelineState)

DEFAULT_TTL_SECONDS = 3600.0
DEFAULT_MAX_CLIENTS = 1000
#: most buckets one signed-in principal keeps (its own LRU ones go first beyond that)
DEFAULT_MAX_PER_PRINCIPAL = 100

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

    Users cannot crowd each other out: the buckets of one signed-in principal
    (`user:<hash>` and its `user:<hash>:client:<hash>` splits) are capped at
    `max_per_principal`, its own least recently used going first, and when the store is
    full the principal holding the most buckets gives one up. Every other key is its
    own owner, so without sign-in the order is plain LRU.
    """

    def __init__(
        self,
        factory: Callable[[], S],
        *,
        ttl: float = DEFAULT_TTL_SECONDS,
        max_clients: int = DEFAULT_MAX_CLIENTS,
        max_per_principal: int = DEFAULT_MAX_PER_PRINCIPAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl <= 0:
            raise ValueError("ttl must be positive")
        if max_clients < 1:
            raise ValueError("max_clients must be at least 1")
        if max_per_principal < 1:
            raise ValueError("max_per_principal must be at least 1")
        self._factory = factory
        self.ttl = ttl
        self.max_clients = max_clients
        self.max_per_principal = max_per_principal
        self._clock = clock
        # Ordered oldest-used first, so expiry and LRU eviction scan from the front.
        self._buckets: OrderedDict[str, Bucket[S]] = OrderedDict()
        self._owned: Counter[str] = Counter()  # buckets per owner (see owner())

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
            owner = self.owner(key)
            if self._owned[owner] >= self.max_per_principal:
                self._evict(self.max_per_principal - 1, owner)
            self._make_room(self.max_clients - 1)
            found = Bucket(state=self._factory(), last_used=now)
            self._buckets[key] = found
            self._owned[owner] += 1
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
        if key not in self._buckets:
            return False
        self._remove(key)
        return True

    @staticmethod
    def owner(key: str) -> str:
        """Whose bucket `key` is: the principal part of `user:` keys, else the key."""
        return key.split(":client:", 1)[0] if key.startswith("user:") else key

    def sweep(self) -> int:
        """Drop expired and surplus buckets; returns how many went."""
        before = len(self._buckets)
        self._expire(self._clock())
        self._make_room(self.max_clients)
        return before - len(self._buckets)

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncGenerator[S, None]:
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
                self._remove(key)

    def _remove(self, key: str) -> None:
        del self._buckets[key]
        owner = self.owner(key)
        self._owned[owner] -= 1
        if self._owned[owner] <= 0:
            del self._owned[owner]

    def _make_room(self, limit: int) -> None:
        while len(self._buckets) > limit:
            # the principal holding the most buckets gives one up (plain LRU among equals)
            largest = max(self._owned.values(), default=0)
            busiest = {o for o, n in self._owned.items() if n == largest}
            if not self._evict_one(busiest) and not self._evict_one(None):
                return  # every bucket is busy

    def _evict(self, limit: int, owner: str) -> None:
        while self._owned[owner] > limit and self._evict_one({owner}):
            pass

    def _evict_one(self, owners: set[str] | None) -> bool:
        """Drop the least recently used idle bucket of `owners` (None: anyone's)."""
        for key, bucket in self._buckets.items():
            if bucket.users == 0 and (owners is None or self.owner(key) in owners):
                self._remove(key)
                return True
        return False
