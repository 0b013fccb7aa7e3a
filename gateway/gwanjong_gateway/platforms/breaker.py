"""A circuit breaker per platform server, with exponential backoff on an injectable clock.

Closed: calls go through. After a failed start or a hang it opens: calls fail at once
until `next_try`, when the server is started again and the next call is the trial
(half-open). A successful call closes it; another failure opens it for twice as long.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

Clock = Callable[[], float]


@dataclass
class Breaker:
    clock: Clock = field(default=time.monotonic)
    base_s: float = 2.0
    max_s: float = 120.0
    failures: int = 0
    next_try: float | None = None

    def failed(self, immediate: bool = False) -> float:
        """Count a failure; returns the seconds until the next try. `immediate` (a
        connection lost mid-call) restarts at once the first time it happens."""
        self.failures += 1
        delay = 0.0 if immediate and self.failures == 1 else self.delay()
        self.next_try = self.clock() + delay
        return delay

    def delay(self) -> float:
        return min(self.max_s, self.base_s * 2 ** max(0, self.failures - 1))

    def succeeded(self) -> None:
        self.failures, self.next_try = 0, None

    def is_open(self) -> bool:
        return self.next_try is not None and self.clock() < self.next_try

    def retry_in(self) -> float:
        if self.next_try is None:
            return 0.0
        return max(0.0, self.next_try - self.clock())
