"""The one outbound limiter every platform server uses.

Two halves, so that we stay under a platform's limits instead of bouncing off them, and
stop asking once it said no:

- pacing: a token bucket for reads and a minimum interval for writes (published limits);
- windows: what the platform said in its headers (``Retry-After``; X ``x-rate-limit-*``;
  Reddit ``x-ratelimit-*``; Bluesky ``ratelimit-*``). After a 429, or when a window's
  ``remaining`` hits 0, calls on that key are refused locally with ``rate_limited`` and the
  seconds left until the reset, instead of being sent to earn another 429.

Both take injectable clocks (``clock`` monotonic, ``wall`` epoch seconds for resets given as
timestamps) and an injectable ``sleep``, so tests advance time instead of waiting for it.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator, Mapping
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

import anyio
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult

from gwanjong_shared.contract import errors
from gwanjong_shared.contract.models import RateLimit
from gwanjong_shared.contract.rate import META_KEY, RateWindow

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]
# The header families, in the order they are read; the first with a value wins.
PREFIXES = ("x-rate-limit", "x-ratelimit", "ratelimit")
# A reset value above this is an epoch timestamp (X, Bluesky), below it a delay (Reddit).
_EPOCH = 1_000_000_000
DEFAULT_WAIT_S = 60.0  # a 429 that names no wait


class Pacer(Protocol):
    async def acquire(self) -> float: ...


class TokenBucket:
    """``rate`` requests per ``per`` seconds, bursting up to ``rate``."""

    def __init__(
        self,
        rate: float,
        per: float = 60.0,
        clock: Clock = time.monotonic,
        sleep: Sleep = anyio.sleep,
    ) -> None:
        if rate <= 0 or per <= 0:
            raise ValueError("rate and per must be positive")
        self.capacity = rate
        self.refill = rate / per
        self._tokens = rate
        self._clock = clock
        self._sleep = sleep
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
                await self._sleep(waited)
                self._top_up()
            self._tokens -= 1
            return waited


class MinInterval:
    """At least ``seconds`` between two calls: from the last start, or from the last answer
    once ``stamp``ed (``Limiter.paced``)."""

    def __init__(
        self, seconds: float, clock: Clock = time.monotonic, sleep: Sleep = anyio.sleep
    ) -> None:
        self.seconds = seconds
        self._clock = clock
        self._sleep = sleep
        self._last: float | None = None
        self._lock = anyio.Lock()

    async def acquire(self) -> float:
        async with self._lock:
            waited = 0.0
            if self._last is not None:
                waited = max(0.0, self._last + self.seconds - self._clock())
                if waited:
                    await self._sleep(waited)
            self._last = self._clock()
            return waited

    def stamp(self) -> None:
        """Count the interval from now (a call just finished): latency then never lets two
        calls arrive closer than ``seconds``."""
        self._last = self._clock()


# -- what the headers say ----------------------------------------------------------------


def header_number(text: str) -> float:
    """A header's number; inf and nan (a proxy's) are none: ValueError, as for any text."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    if value is None:
        value = headers.get(name.title())
    return value.strip() if isinstance(value, str) and value.strip() else None


def retry_after_seconds(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    value = _header(headers, "retry-after")
    if value is None:
        return None
    try:
        return max(0.0, header_number(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


@dataclass(frozen=True)
class Window:
    """One rate-limit window as the platform described it."""

    limit: int | None = None
    remaining: float | None = None
    reset_in: float | None = None  # seconds from now


def read_window(headers: Mapping[str, str], now: float | None = None) -> Window | None:
    """The window from X, Reddit or Bluesky headers, or None when there are none.

    Resets are epoch seconds on X and Bluesky and a delay on Reddit: a value too large
    to be a delay is taken as a timestamp."""
    for prefix in PREFIXES:
        raw = {
            k: _header(headers, f"{prefix}-{k}") for k in ("limit", "remaining", "reset", "used")
        }
        if raw["remaining"] is None and raw["reset"] is None:
            continue
        try:
            remaining = header_number(raw["remaining"]) if raw["remaining"] is not None else None
            reset = header_number(raw["reset"]) if raw["reset"] is not None else None
            limit = int(header_number(raw["limit"])) if raw["limit"] is not None else None
            if limit is None and raw["used"] is not None and remaining is not None:
                limit = int(remaining + header_number(raw["used"]))  # Reddit sends used + remaining
        except ValueError:
            return None
        if reset is not None and reset > _EPOCH:
            reset = reset - (time.time() if now is None else now)
        return Window(limit, remaining, None if reset is None else max(0.0, reset))
    return None


def wait_from(status: int, headers: Mapping[str, str], now: float | None = None) -> float | None:
    """How long a response tells us to stay away: None when it does not."""
    window = read_window(headers, now)
    if status == 429:
        after = retry_after_seconds(headers, now)
        if after is None and window is not None:
            after = window.reset_in
        return DEFAULT_WAIT_S if after is None else after
    if window is not None and window.remaining is not None and window.remaining <= 0:
        return window.reset_in if window.reset_in else None
    return None


# -- what one tool call saw ------------------------------------------------------------

# The windows observed while a tool call runs (its requests run in its own task, so a
# context variable keeps concurrent calls apart).
_seen: ContextVar[dict[str, RateLimit] | None] = ContextVar("gwanjong_rate_seen", default=None)


@contextmanager
def recording() -> Generator[dict[str, RateLimit], None, None]:
    """Collect, per key, the last window any Limiter observes inside this block."""
    seen: dict[str, RateLimit] = {}
    token = _seen.set(seen)
    try:
        yield seen
    finally:
        _seen.reset(token)


def tightest(windows: Mapping[str, RateLimit]) -> RateLimit | None:
    """The window with the least remaining (the one that will stop us first)."""
    known = [w for w in windows.values() if w.remaining is not None]
    return min(known, key=lambda w: w.remaining or 0, default=None)


# -- the limiter --------------------------------------------------------------------------

ANY = "*"  # the key for a limit that covers every call (Reddit's per-account budget)


class Limiter:
    """Pacing plus the platform's windows, per key (an endpoint, or "read"/"write").

    ``check`` before every request (then ``paced`` around it) and ``observe`` every
    response (errors too: 429s carry the wait). A window blocks its own key and, for
    :data:`ANY`, every key."""

    def __init__(
        self,
        label: str,
        *,
        reads: Pacer | tuple[Pacer, ...] = (),
        writes: Pacer | tuple[Pacer, ...] = (),
        clock: Clock = time.monotonic,
        wall: Clock = time.time,
        sleep: Sleep = anyio.sleep,
    ) -> None:
        self.label = label
        self._sleep = sleep
        self.reads = reads if isinstance(reads, tuple) else (reads,)
        self.writes = writes if isinstance(writes, tuple) else (writes,)
        self._clock = clock
        self._wall = wall
        self._until: dict[str, float] = {}  # key -> clock() before which we do not call
        self.windows: dict[str, RateLimit] = {}  # key -> what the platform last said

    def observe(self, key: str, status: int, headers: Mapping[str, str]) -> float | None:
        """Remember what one response said; returns the wait it imposes (None: none)."""
        now, wall = self._clock(), self._wall()
        window = read_window(headers, wall)
        if window is not None:
            reset_at = wall + window.reset_in if window.reset_in is not None else None
            remaining = int(window.remaining) if window.remaining is not None else None
            self.windows[key] = RateLimit(
                limit=window.limit, remaining=remaining, reset_at=reset_at
            )
            seen = _seen.get()
            if seen is not None:
                seen[key] = self.windows[key]
        wait = wait_from(status, headers, wall)
        if wait is not None and wait > 0:
            self._until[key] = max(self._until.get(key, 0.0), now + wait)
        elif window is not None and (window.remaining or 0) > 0:
            self._until.pop(key, None)  # the platform says there is budget again
        return wait

    def block(self, key: str, seconds: float) -> None:
        """Hold ``key`` for ``seconds`` (a wait learnt some other way, e.g. an error body)."""
        self._until[key] = max(self._until.get(key, 0.0), self._clock() + max(0.0, seconds))

    def wait_s(self, key: str = ANY) -> float:
        """Seconds until ``key`` may be called again (0: now)."""
        until = max(self._until.get(key, 0.0), self._until.get(ANY, 0.0))
        return max(0.0, until - self._clock())

    def longest_wait_s(self) -> float:
        """Seconds until every window we know of is open again (0: none is shut)."""
        now = self._clock()
        return max((until - now for until in self._until.values()), default=0.0)

    def check(self, key: str = ANY, *, tolerate_s: float = 0.0) -> None:
        """Refuse with ``rate_limited`` while the platform's window for ``key`` is shut
        (waits up to ``tolerate_s`` are left to the SDK)."""
        wait = self.wait_s(key)
        if wait > tolerate_s:
            raise errors.rate_limited(
                f"{self.label} asked us to wait until its rate-limit window resets, so this "
                f"server holds calls until then. Wait {max(1, math.ceil(wait))} seconds before "
                "calling again.",
                wait,
            )

    async def wait_or_refuse(self, key: str = ANY, *, tolerate_s: float) -> float:
        """Sleep through a shut window of up to ``tolerate_s``; refuse a longer one.
        Returns the seconds slept."""
        self.check(key, tolerate_s=tolerate_s)
        wait = self.wait_s(key)
        if wait > 0:
            await self._sleep(wait)
        return wait

    async def pace(self, *, write: bool = False) -> None:
        """Keep to the published rate: a write waits its interval, a read for a token."""
        for pacer in self.writes if write else self.reads:
            await pacer.acquire()

    @asynccontextmanager
    async def paced(self, *, write: bool = False) -> AsyncGenerator[None]:
        """``pace``, then the call, then ``finished``: the interval counts from its answer."""
        await self.pace(write=write)
        try:
            yield
        finally:
            self.finished(write=write)

    def finished(self, *, write: bool = False) -> None:
        """A call's answer arrived: minimum intervals count from here."""
        for pacer in self.writes if write else self.reads:
            if isinstance(pacer, MinInterval):
                pacer.stamp()


class RateMeta(Middleware):
    """Attach the tightest rate window a tool call observed to its result's ``_meta``
    (the shape is the contract's: :mod:`gwanjong_shared.contract.rate`)."""

    async def on_call_tool(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        with recording() as seen:
            result = await call_next(context)
        window = tightest(seen)
        found = RateWindow.from_rate_limit(window) if window is not None else None
        if found is None or not isinstance(result, ToolResult):
            return result
        meta = dict(result.meta or {})
        meta[META_KEY] = found.model_dump(mode="json")
        return result.model_copy(update={"meta": meta})
