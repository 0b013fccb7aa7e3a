"""The one fake clock of the suite: time that moves only when a test (or the code under
test, through ``sleep``) moves it. No test waits on, or is bounded by, the machine's clock."""

from __future__ import annotations

from datetime import UTC, datetime

import anyio

#: Where the wall starts unless a test says otherwise: 2027-01-15, a plausible "now".
WALL_START = 1_800_000_000.0


class FakeClock:
    """A monotonic clock and a wall clock that advance together, plus the sleep that
    advances them.

    Pass the clock itself where code takes a monotonic clock (``clock=clock``: it is a
    ``time.monotonic``-like callable), ``clock.time`` where it takes epoch seconds (a
    ``time.time``-like callable), ``clock.utc`` where it takes an aware ``datetime``, and
    ``clock.sleep`` where it takes an async sleep: waits then pass at once and the test reads
    what was waited from ``slept``. ``step_wall`` moves the wall alone (an NTP correction,
    a resumed VM), which is what a monotonic clock is there to ignore.

    ``gated=True``: each sleep waits until the test lets it pass with ``pass_one`` (which
    then moves the clock by what was asked), for a test that steps a background task; a
    sleep cancelled first leaves the queue (``waiting``) without moving the clock.
    """

    def __init__(
        self, now: float = 1000.0, *, wall: float = WALL_START, gated: bool = False
    ) -> None:
        self.now = now
        self.wall = wall
        self.slept: list[float] = []
        self.gated = gated
        self._pending: list[tuple[float, anyio.Event]] = []
        self._asked = anyio.Event() if gated else None

    def __call__(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return self.wall

    def utc(self) -> datetime:
        return datetime.fromtimestamp(self.wall, UTC)

    def advance(self, seconds: float) -> None:
        """Time passes: both clocks move."""
        self.now += seconds
        self.wall += seconds

    def step_wall(self, seconds: float) -> None:
        """The wall clock jumps (either way); the monotonic clock does not."""
        self.wall += seconds

    async def sleep(self, seconds: float) -> None:
        if self._asked is not None:
            asked = (seconds, anyio.Event())
            self._pending.append(asked)
            self._asked.set()
            try:
                await asked[1].wait()
            finally:  # cancelled before it passed (what it waited for came first): never slept
                if asked in self._pending:
                    self._pending.remove(asked)
            return
        self.slept.append(seconds)
        self.advance(seconds)
        await anyio.lowlevel.checkpoint()

    @property
    def waiting(self) -> list[float]:
        """(gated) The sleeps asked for and not yet passed nor cancelled, in the order asked."""
        return [seconds for seconds, _ in self._pending]

    async def pass_one(self) -> None:
        """(gated) Wait for the next sleep, move the clock by it and let it return."""
        assert self._asked is not None, "pass_one is for a FakeClock(gated=True)"
        while not self._pending:
            await self._asked.wait()
            self._asked = anyio.Event()
        seconds, done = self._pending.pop(0)
        self.slept.append(seconds)
        self.advance(seconds)
        done.set()
