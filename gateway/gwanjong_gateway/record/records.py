"""The strike record off the event loop: one connection, used from one worker thread.

SQLite blocks while another process holds its lock; called on the event loop it would
freeze every tool. Here each call runs in a worker thread (one at a time, so the single
connection is never shared), waits at most `BUSY_TIMEOUT_S`, and turns the database's
errors into `unavailable` answers the model can act on. A record that cannot be opened
(corrupt, unreadable) leaves the gateway running: only what needs the record says so.
With `[store] url` the record is PostgreSQL (`store_pg`); an unreachable database is
retried on the next call, never reported with its password.
"""

from __future__ import annotations

import functools
import logging
import math
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from gwanjong_gateway.config import ConfigError, GatewayConfig, expand, read_dotenv
from gwanjong_gateway.extras import MissingExtra
from gwanjong_gateway.record import pg_errors
from gwanjong_gateway.record.store import BUSY_TIMEOUT_S, SchemaError, StrikeStore
from gwanjong_shared.contract.errors import ErrorKind, PlatformError

log = logging.getLogger(__name__)
T = TypeVar("T")


def store_url(config: GatewayConfig, environ: dict[str, str] | None = None) -> str:
    """`[store] url` with `${VAR}` expanded ("" = SQLite). Raises ConfigError."""
    if not config.store.url:
        return ""
    env = {**read_dotenv(config.state_dir / ".env"), **(os.environ if environ is None else environ)}
    return expand(config.store.url, env)


def open_store(config: GatewayConfig, busy_timeout_s: float = BUSY_TIMEOUT_S) -> StrikeStore:
    """The configured record, opened in this thread (the CLI's `history`)."""
    url = store_url(config)
    if url:
        from gwanjong_gateway.record.store_pg import PostgresStrikeStore

        return PostgresStrikeStore(url, busy_timeout_s)
    return StrikeStore(config.state_dir / "gwanjong.db", busy_timeout_s)


class Records:
    def __init__(
        self,
        path: Path,
        busy_timeout_s: float = BUSY_TIMEOUT_S,
        url: str = "",
        environ: dict[str, str] | None = None,
    ) -> None:
        self.path = path
        self.busy_timeout_s = busy_timeout_s
        #: `[store] url` as written (may hold `${VAR}`); "" = the SQLite file at `path`
        self.url = url
        self._environ = environ
        self._store: StrikeStore | None = None
        self._limiter = anyio.CapacityLimiter(1)
        #: why the record cannot be used (a corrupt file); "" when it can
        self.broken = ""

    @classmethod
    def for_config(cls, config: GatewayConfig, environ: dict[str, str] | None = None) -> Records:
        return cls(config.state_dir / "gwanjong.db", url=config.store.url, environ=environ)

    def _open(self) -> StrikeStore:
        if self._store is None:
            if self.broken:
                raise PlatformError(ErrorKind.UNAVAILABLE, self.broken)
            if self.url:
                self._store = self._open_pg()
                return self._store
            try:
                self._store = StrikeStore(self.path, self.busy_timeout_s)
            except sqlite3.OperationalError as exc:
                if _is_busy(exc):
                    raise
                self.broken = self._unreadable(exc)
                raise PlatformError(ErrorKind.UNAVAILABLE, self.broken) from None
            except (sqlite3.DatabaseError, OSError, SchemaError) as exc:
                self.broken = self._unreadable(exc)
                log.error("%s", self.broken)
                raise PlatformError(ErrorKind.UNAVAILABLE, self.broken) from None
        return self._store

    def _open_pg(self) -> StrikeStore:
        env = {**read_dotenv(self.path.parent / ".env"), **(self._environ or os.environ)}
        try:
            url = expand(self.url, env)
            from gwanjong_gateway.record.store_pg import PostgresStrikeStore
        except ConfigError as exc:
            self.broken = f"[store] url: {exc}; fix gateway.toml and restart gwanjong."
            raise PlatformError(ErrorKind.UNAVAILABLE, self.broken) from None
        try:
            return PostgresStrikeStore(url, self.busy_timeout_s)
        except MissingExtra as exc:  # said once (logged), then every call answers with it
            self.broken = str(exc)
            log.error("%s", self.broken)
            raise PlatformError(ErrorKind.UNAVAILABLE, self.broken) from None
        except SchemaError as exc:
            self.broken = f"the strike record at {pg_errors.where(url)}: {exc}."
            raise PlatformError(ErrorKind.UNAVAILABLE, self.broken) from None
        except Exception as exc:
            message = pg_errors.describe(exc, url, self.busy_timeout_s)
            if message is None:
                raise
            log.warning("%s", message)
            raise PlatformError(ErrorKind.UNAVAILABLE, message) from None

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
        except PlatformError:
            raise
        except Exception as exc:
            if not self.url or not isinstance(self._store, StrikeStore):
                raise
            message = pg_errors.describe(exc, self._store_url(), self.busy_timeout_s)
            if message is None:
                raise
            if pg_errors.connection_lost(exc):  # reconnect on the next call
                self._drop()
            log.warning("%s", message)
            raise PlatformError(ErrorKind.UNAVAILABLE, message) from None

    def _store_url(self) -> str:
        return str(getattr(self._store, "url", self.url))

    def _drop(self) -> None:
        store, self._store = self._store, None
        if store is not None:
            try:
                store.close()
            except Exception:  # already broken: closing is best effort
                log.debug("closing the lost strike record connection failed", exc_info=True)

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
