"""Client-side pacing, so we stay under a platform's published limits instead of
bouncing off them: a token bucket for reads, a minimum interval for writes."""

from __future__ import annotations

import time
from collections.abc import Callable

import anyio


class TokenBucket:
    """``rate`` requests per ``per`` seconds, bursting up to ``rate``."""

    def __init__(
        self, rate: float, per: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if rate <= 0 or per <= 0:
            raise ValueError("rate and per must be positive")
        self.capacity = rate
        self.refill = rate / per
        self._tokens = rate
        self._clock = clock
        self._stamp = clock()
        self._lock = anyio.Lock()

    def _top_up(self) -> None:
        now = self._clock()
        self._tokens = min(self.capacity, self._tokens + (now - self._stamp) * self.refill)
        self._stamp = now

    async def acquire(self) -> float:
        """Wait for a token; returns the seconds waited."""
        async with self._lock:
            self._top_up()
            waited = 0.0
            if self._tokens < 1:
                waited = (1 - self._tokens) / self.refill
                await anyio.sleep(waited)
                self._top_up()
            self._tokens -= 1
            return waited


class MinInterval:
    """At least ``seconds`` between the starts of two calls."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self._last: float | None = None
        self._lock = anyio.Lock()

    async def acquire(self) -> float:
        async with self._lock:
            waited = 0.0
            if self._last is not None:
                waited = max(0.0, self._last + self.seconds - self._clock())
                if waited:
                    await anyio.sleep(waited)
            self._last = self._clock()
            return waited
