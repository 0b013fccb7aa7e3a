"""The strike record off the event loop: one connection, used from one worker thread.

SQLite blocks while another process holds its lock; called on the event loop it would
freeze every tool. Here each call runs in a worker thread (one at a time, so the single
connection is never shared), waits at most `BUSY_TIMEOUT_S`, and turns SQLite's errors
into `unavailable` answers the model can act on. A record that cannot be opened (corrupt,
unreadable) leaves the gateway running: only what needs the record says so.
"""

from __future__ import annotations

import functools
import logging
import math
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from gwanjong_gateway.store import BUSY_TIMEOUT_S, StrikeStore
from gwanjong_shared.errors import ErrorKind, PlatformError

log = logging.getLogger(__name__)
T = TypeVar("T")


class Records:
    def __init__(self, path: Path, busy_timeout_s: float = BUSY_TIMEOUT_S) -> None:
        self.path = path
        self.busy_timeout_s = busy_timeout_s
        self._store: StrikeStore | None = None
        self._limiter = anyio.CapacityLimiter(1)
        #: why the record cannot be used (a corrupt file); "" when it can
        self.broken = ""

    def _open(self) -> StrikeStore:
        if self._store is None:
            if self.broken:
                raise PlatformError(ErrorKind.UNAVAILABLE, self.broken)
            try:
                self._store = StrikeStore(self.path, self.busy_timeout_s)
            except sqlite3.OperationalError as exc:
                if _is_busy(exc):
                    raise
                self.broken = self._unreadable(exc)
                raise PlatformError(ErrorKind.UNAVAILABLE, self.broken) from None
            except (sqlite3.DatabaseError, OSError) as exc:
                self.broken = self._unreadable(exc)
                log.error("%s", self.broken)
                raise PlatformError(ErrorKind.UNAVAILABLE, self.broken) from None
        return self._store

    def _unreadable(self, exc: BaseException) -> str:
        return (
            f"the strike record {self.path} cannot be read ({exc}); nothing will be written "
            f"until it is fixed. Stop gwanjong, move it aside (mv {self.path} {self.path}.broken) "
            "and start again: a new record is created."
        )

    async def open(self) -> bool:
        """Open now (at start); False, with `broken` set or a busy lock, if it cannot."""
        try:
            await self.run(lambda store: None)
        except PlatformError:
            return False
        return True

    async def run(self, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        """``fn(store, *args, **kwargs)`` in the worker thread."""

        def work() -> T:
            return fn(self._open(), *args, **kwargs)

        try:
            return await anyio.to_thread.run_sync(
                functools.partial(work), limiter=self._limiter, abandon_on_cancel=False
            )
        except sqlite3.OperationalError as exc:
            if _is_busy(exc):
                raise PlatformError(
                    ErrorKind.UNAVAILABLE,
                    "the strike record is busy (locked by another gwanjong process); "
                    f"try again in {max(1, math.ceil(self.busy_timeout_s))} s.",
                ) from None
            raise PlatformError(ErrorKind.UNAVAILABLE, self._unreadable(exc)) from None
        except sqlite3.DatabaseError as exc:
            raise PlatformError(ErrorKind.UNAVAILABLE, self._unreadable(exc)) from None

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def health_of(store: StrikeStore, platforms: list[str]) -> dict[str, Any]:
    """What status shows about the record (run in the record's worker thread)."""
    return {
        "paused": {name: store.paused(name) for name in platforms},
        "unsettled": len(store.unsettled()),
    }
