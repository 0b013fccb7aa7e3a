"""The strike record off the event loop: each call in a worker thread on a connection of its
own, within `lock_timeout_s` and `call_deadline_s`, the database's errors turned into
`unavailable` answers (never with a password); on SQLite, a question that only reads is
asked at once (`Records.run`). A record that cannot be opened leaves the gateway running.
"""

from __future__ import annotations

import logging
import math
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Generator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import anyio.to_thread

from gwanjong_gateway.config import ConfigError, GatewayConfig, StoreSection
from gwanjong_gateway.config.load import expand, read_dotenv
from gwanjong_gateway.extras import MissingExtra
from gwanjong_gateway.record.readers import EVERYONE, Reader
from gwanjong_gateway.record.sql import pg_errors
from gwanjong_gateway.record.sql.sqlite_errors import Trouble, primary_code, trouble
from gwanjong_gateway.record.store import BUSY_TIMEOUT_S, READS, SchemaError, StrikeStore

if TYPE_CHECKING:
    from gwanjong_shared.contract.errors import PlatformError

log = logging.getLogger(__name__)
T = TypeVar("T")


def store_url(config: GatewayConfig, environ: dict[str, str] | None = None) -> str:
    """`[store] url` with `${VAR}` expanded ("" = SQLite). Raises ConfigError."""
    return _expand(config.store.url, config.state_dir, environ)


def _expand(url: str, state_dir: Path, environ: dict[str, str] | None) -> str:
    if not url:
        return ""
    env = {**read_dotenv(state_dir / ".env"), **(os.environ if environ is None else environ)}
    return expand(url, env)


def open_store(config: GatewayConfig, busy_timeout_s: float = BUSY_TIMEOUT_S) -> StrikeStore:
    """The configured record, opened in this thread (the CLI's `history`)."""
    url = store_url(config)
    if url:
        from gwanjong_gateway.record.store import PostgresStrikeStore

        return PostgresStrikeStore(url, busy_timeout_s)
    return StrikeStore(config.state_dir / "gwanjong.db", busy_timeout_s)


class _Lease:
    """One call's turn on a connection, in a worker thread. A call past its deadline is
    abandoned: if it was still waiting for its turn it never runs; if it was running, its
    thread closes the connection when (if) the call returns, never to be reused."""

    def __init__(self) -> None:
        self.store: StrikeStore | None = None
        self._lock = threading.Lock()
        self._done = False
        self._abandoned = False

    def begin(self) -> bool:  # in the worker thread, its turn come: False if given up
        with self._lock:
            return not self._abandoned

    def finish(self) -> bool:  # in the worker thread: False if abandoned (closed here)
        with self._lock:
            self._done = True
            if self._abandoned:
                _close_quietly(self.store)
            return not self._abandoned

    def abandon(self) -> None:  # on the event loop, at the deadline
        with self._lock:
            self._abandoned = True
            if self._done:
                _close_quietly(self.store)


def _close_quietly(store: StrikeStore | None) -> None:
    if store is not None:
        try:
            store.close()
        except Exception:  # already broken: closing is best effort
            log.debug("closing a lost strike record connection failed", exc_info=True)


def unavailable(message: str) -> PlatformError:
    from gwanjong_shared.contract.errors import ErrorKind, PlatformError

    return PlatformError(ErrorKind.UNAVAILABLE, message)


def platform_error(exc: BaseException) -> PlatformError | None:
    """``exc`` if it is a PlatformError, else None. Imported here, not at the top: importing
    FastMCP costs about a second, which a successful `review list` must not pay."""
    from gwanjong_shared.contract.errors import PlatformError

    return exc if isinstance(exc, PlatformError) else None


async def within(
    deadline_s: float, sleep: Callable[[float], Awaitable[None]], work: Callable[[], Awaitable[T]]
) -> T:
    """``work()``'s answer, or TimeoutError once ``sleep(deadline_s)`` returns first (``work``
    is then cancelled): `anyio.fail_after` on the caller's clock instead of real time."""
    got: list[T] = []
    failed: list[Exception] = []
    async with anyio.create_task_group() as tg:

        async def run() -> None:
            try:
                got.append(await work())
            except Exception as exc:  # raised below, not as a task group's ExceptionGroup
                failed.append(exc)
            tg.cancel_scope.cancel()  # answered: no deadline left to wait for

        tg.start_soon(run)
        await sleep(deadline_s)
        tg.cancel_scope.cancel()
    if failed:
        raise failed[0]
    if not got:
        raise TimeoutError
    return got[0]


class _Abandoned(Exception):
    """A call given up (its deadline) before its turn came: it never ran."""


#: the first `unavailable` answer of the record within one tool call (see `one_wait`)
_OUTAGE: ContextVar[list[PlatformError] | None] = ContextVar("gwanjong_outage", default=None)


class Records:
    def __init__(
        self,
        path: Path,
        busy_timeout_s: float = BUSY_TIMEOUT_S,
        url: str = "",
        environ: dict[str, str] | None = None,
        store: StoreSection | None = None,
    ) -> None:
        self.path = path
        self.busy_timeout_s = busy_timeout_s
        #: `[store] url` as written (may hold `${VAR}`); "" = the SQLite file at `path`
        self.url = url
        self._environ = environ
        self.settings = store or StoreSection(lock_timeout_s=busy_timeout_s)
        #: the longest one call waits before it answers `unavailable` (`[store] call_deadline_s`)
        self.deadline_s = self.settings.call_deadline_s
        #: idle connections; at most `pool_size` calls run at once (SQLite: one writer)
        self._free: list[StrikeStore] = []
        self._closed = False  # close() was called: connections are no longer kept
        # Calls take their turn in their worker thread, not on the event loop: one ending
        # lets the next start at once, not when a busy loop next resumes its caller.
        self._turns = threading.BoundedSemaphore(self.settings.pool_size if url else 1)
        self._threads = anyio.CapacityLimiter(64)  # calls running or waiting their turn
        self._pool = threading.Lock()  # `_free` and `_closed`: worker threads and close()
        #: why the record cannot be used (a corrupt file); "" when it can
        self.broken = ""
        self._opened = False  # a call went through: the file is there, checked and migrated
        self._reader: StrikeStore | None = None  # SQLite: the event loop's (`_read_now`)

    @classmethod
    def for_config(cls, config: GatewayConfig, environ: dict[str, str] | None = None) -> Records:
        return cls(
            config.state_dir / "gwanjong.db",
            busy_timeout_s=config.store.lock_timeout_s,
            url=config.store.url,
            environ=environ,
            store=config.store,
        )

    def _open(self) -> StrikeStore:
        if self.broken:
            raise unavailable(self.broken)
        if self.url:
            return self._open_pg()
        try:
            return StrikeStore(self.path, self.busy_timeout_s)
        except SchemaError as exc:  # not damage: doctor --repair changes nothing here
            raise self._broken(self.said(exc)) from None
        except (sqlite3.DatabaseError, OSError) as exc:
            said = self._passing(exc)
            if said is None:  # damage
                raise self._broken(self._unreadable(exc)) from None
            raise unavailable(said) from None

    def _broken(self, message: str) -> PlatformError:
        """The record cannot be used until fixed: said once (logged), then every call answers
        with it."""
        self.broken = message
        log.error("%s", message)
        return unavailable(message)

    def _open_pg(self) -> StrikeStore:
        try:
            url = _expand(self.url, self.path.parent, self._environ or None)
            from gwanjong_gateway.record.store import PostgresStrikeStore
        except ConfigError as exc:
            said = f"[store] url: {exc}; fix gateway.toml and restart gwanjong."
            raise self._broken(said) from None
        try:
            return PostgresStrikeStore(
                url,
                self.busy_timeout_s,
                self.settings.connect_timeout_s,
                self.settings.statement_timeout_s,
            )
        except MissingExtra as exc:
            raise self._broken(str(exc)) from None
        except SchemaError as exc:
            raise self._broken(f"the strike record at {pg_errors.where(url)}: {exc}.") from None
        except Exception as exc:
            message = pg_errors.describe(exc, url, self.busy_timeout_s)
            if message is None:
                raise
            log.warning("%s", message)
            raise unavailable(message) from None

    def _passing(self, exc: sqlite3.Error | OSError) -> str | None:
        """What to answer for a SQLite trouble that passes (busy, a read-only state_dir, a
        full disk: retried on the next call, never `broken`); None: the record is damaged."""
        found = trouble(exc)
        if found is Trouble.BUSY:
            return (
                "the strike record is busy (locked by another gwanjong process); "
                f"try again in {max(1, math.ceil(self.busy_timeout_s))} s."
            )
        if found is Trouble.READ_ONLY:
            return self._read_only(exc)
        return self._full(exc) if found is Trouble.FULL or self._no_room(exc) else None

    def said(self, exc: sqlite3.Error | OSError | SchemaError) -> str:
        """What the SQLite record's own error means, and what to do (never SQLite's raw words
        alone: a "database is locked" is the record being busy)."""
        if isinstance(exc, SchemaError):
            return f"the strike record {self.path}: {exc}."
        return self._passing(exc) or self._unreadable(exc)

    def _read_only(self, exc: BaseException) -> str:
        return (
            f"the strike record {self.path} cannot be written ({exc}): state_dir is read-only, "
            "so nothing is written (a write that cannot be recorded is never sent). Make "
            f"{self.path.parent} writable, then try again."
        )

    def _unreadable(self, exc: BaseException) -> str:
        # journal: never "move it aside": that loses every claim and unsure write
        return (
            f"the strike record {self.path} cannot be read ({exc}); nothing will be written "
            "until it is fixed. Stop gwanjong and run `gwanjong doctor --repair`: it exports "
            "every claim and unsure write first, then rebuilds the record carrying them over."
        )

    def _no_room(self, exc: BaseException) -> bool:
        """An I/O error while the disk has no room left (SQLite says `disk I/O error` when
        it cannot grow its shared-memory file): full too."""
        if not isinstance(exc, sqlite3.Error) or primary_code(exc) != sqlite3.SQLITE_IOERR:
            return False
        try:
            return shutil.disk_usage(self.path.parent).free < 64 * 1024
        except OSError:
            return False

    def _full(self, exc: BaseException) -> str:
        return (
            f"the strike record {self.path} cannot be written: the disk is full ({exc}); nothing new is "
            "written until there is room (a write that cannot be recorded is never sent). "
            f"Free space on the disk of {self.path.parent}, then try again, keeping the record "
            "where it is (its claims stop a write from being sent twice); if the record "
            "still cannot be used, stop gwanjong and run `gwanjong doctor --repair` (it "
            "carries every claim and unsure write over)."
        )

    async def open(self) -> bool:
        """Open now (at start); False, with `broken` set or a busy lock, if it cannot."""

        try:
            await self.run(StrikeStore.schema_version)
        except Exception as exc:
            if platform_error(exc) is None:
                raise
            return False
        return True

    async def run(self, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        """``fn(store, *args, **kwargs)`` in a worker thread, within `deadline_s`; on
        SQLite, a question that only reads (`READS`) is asked at once (`_read_now`)."""
        if fn in READS and self._read_now():
            try:
                return fn(self._reader, *args, **kwargs)
            except sqlite3.Error:  # busy, or worse: the worker thread says which
                self._drop_reader()
        return await self.run_within(self.deadline_s, fn, *args, sleep=None, **kwargs)

    def _read_now(self) -> bool:
        """Whether a read can be asked on the event loop: SQLite in WAL mode, where a read
        never waits for a writer, on a read-only connection of its own that never waits
        for a lock, so a hop to the record's thread costs more than the read itself."""
        if self.url or self.broken or self._closed or not self._opened or _OUTAGE.get():
            return False
        if self._reader is None:
            try:
                self._reader = StrikeStore.reader(self.path)
            except (sqlite3.Error, OSError):
                return False
        return True

    def _drop_reader(self) -> None:
        reader, self._reader = self._reader, None
        _close_quietly(reader)

    @contextmanager
    def one_wait(self) -> Generator[None, None, None]:
        """Within: once a record call answers `unavailable`, the later ones answer the same at
        once, so a frozen database costs a tool call one deadline, not one per record call."""
        token = _OUTAGE.set([])
        try:
            yield
        finally:
            _OUTAGE.reset(token)

    async def run_within(
        self,
        deadline_s: float,
        fn: Callable[..., T],
        *args: object,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        **kwargs: object,
    ) -> T:
        """`run` with its own deadline (status answers within 2 s), waited with ``sleep``
        (a caller's own clock: the gateway's, which tests inject); None: on real time."""
        outage = _OUTAGE.get()
        if outage:
            raise unavailable(outage[0].message)
        try:
            if sleep is not None:
                return await within(deadline_s, sleep, lambda: self._call(fn, *args, **kwargs))
            with anyio.fail_after(deadline_s):
                return await self._call(fn, *args, **kwargs)
        except TimeoutError:
            log.warning("a strike record call took longer than %.1f s; abandoned", deadline_s)
            error = unavailable(
                f"the strike record did not answer within {deadline_s:g} s (the database is "
                "frozen, overloaded or unreachable); a write in flight may have been claimed. "
                "Check the database, then call again: strike says whether it was written.",
            )
        except Exception as exc:
            found = platform_error(exc)
            if outage is not None and found is not None and found.kind == "unavailable":
                outage.append(found)
            raise
        if outage is not None:
            outage.append(error)
        raise error

    def _idle(self) -> StrikeStore | None:
        """An idle connection not known dead (after a database restart, none is)."""
        while True:
            with self._pool:
                if not self._free:
                    return None
                store = self._free.pop()
            if not store.engine.stale():
                return store
            log.info("dropped a strike record connection the database had closed")
            _close_quietly(store)

    async def _call(self, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        lease = _Lease()

        def work() -> T:
            with self._turns:
                if not lease.begin():
                    raise _Abandoned
                try:
                    lease.store = self._idle() or self._open()
                    result = fn(lease.store, *args, **kwargs)
                except BaseException as exc:
                    if lease.finish():
                        self._give_back(lease.store, exc)
                    raise
                if lease.finish():
                    self._give_back(lease.store, None)
                return result

        try:
            result = await anyio.to_thread.run_sync(
                work, limiter=self._threads, abandon_on_cancel=True
            )
        except BaseException as exc:
            if isinstance(exc, anyio.get_cancelled_exc_class()):
                lease.abandon()
                raise
            raise self._answer(exc, lease.store) from None
        self._opened = True
        return result

    def _give_back(self, store: StrikeStore | None, exc: BaseException | None) -> None:
        """In the worker thread, its turn not yet over."""
        if store is None:
            return
        with self._pool:  # a call that ended after close(): its connection goes too
            if not self._closed and (
                exc is None or not self.url or not pg_errors.connection_lost(exc)
            ):
                self._free.append(store)
                return
        _close_quietly(store)

    def _answer(self, exc: BaseException, store: StrikeStore | None) -> BaseException:
        if isinstance(exc, sqlite3.DatabaseError):
            return unavailable(self.said(exc))
        if platform_error(exc) or not self.url or store is None:
            return exc
        message = pg_errors.describe(exc, store.url, self.busy_timeout_s)
        if message is None:
            return exc
        log.warning("%s", message)
        return unavailable(message)

    def close(self) -> None:
        """Close every idle connection; one lent out now closes when its call ends."""
        with self._pool:
            self._closed = True
            free, self._free = self._free, []
        self._drop_reader()
        for store in free:
            store.close()


#: decisions status shows: the last few of the last day
RECENT_DECISIONS = 5
RECENT_S = 86400.0


def health_of(
    store: StrikeStore,
    platforms: list[str],
    reader: Reader = EVERYONE,
    now: float | None = None,
    deciders: tuple[str, ...] = (),
) -> dict[str, Any]:
    """What status shows about the record: the pauses, the unsettled writes ``reader`` may read,
    their approvals (``deciders`` see everyone's) and `[notify]`'s last message."""
    at = time.time() if now is None else now
    pending_of, decided_of = reader.approvals(deciders)
    waiting = store.approvals(at, pending=True, principal=pending_of, limit=20)
    decided = [
        a
        for a in store.approvals(at, pending=False, principal=decided_of, limit=20)
        if a.decided_at is not None and a.decided_at >= at - RECENT_S
    ][:RECENT_DECISIONS]
    return {
        "paused": {name: store.paused(name) for name in platforms},
        "unsettled": len([s for s in store.unsettled() if reader.may_read(s.principal)]),
        "approvals": [a.public(at) for a in waiting],
        "decided": [a.public(at) for a in decided],
        "notified": store.last_notice() if reader.everyone else None,
    }
