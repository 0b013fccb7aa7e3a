"""Time that moves only when a test (or the code under test, through ``sleep``) moves it."""

from __future__ import annotations

import anyio


class FakeTime:
    """A monotonic clock plus the sleep that advances it: pacing runs at once, and the test
    reads what was waited from ``slept``."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        await anyio.lowlevel.checkpoint()
