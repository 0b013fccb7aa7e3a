"""Usage figures in PostgreSQL (`[store] url`): every gateway process writes its calls into
one `usage_calls` table (migration step 4), so `gwanjong usage` shows the whole team's.

Only the engine (record/engine.py) and failure differ from `UsageLog`. Usage is best
effort: while the database is down each batch is dropped, with one warning until it answers again; a tool call never
waits on it (the writer is UsageLog's background thread).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gwanjong_gateway.config import ConfigError, GatewayConfig
from gwanjong_gateway.config_ops import micro_usd
from gwanjong_gateway.extras import MissingExtra, require_psycopg
from gwanjong_gateway.record import pg_errors
from gwanjong_gateway.record.engine import Engine, PostgresEngine
from gwanjong_gateway.record.readers import Reader
from gwanjong_gateway.record.records import store_url
from gwanjong_gateway.usage.ledger import DaySpend, PostgresSpendLedger, SpendLedger
from gwanjong_gateway.usage.log import USAGE_FILE, UsageLog, UsageUnavailable

log = logging.getLogger(__name__)
TABLE = "usage_calls"


class PostgresUsageLog(UsageLog):
    TABLE = TABLE

    def __init__(
        self,
        url: str,
        clock: Callable[[], float] = time.time,
        count_tokens: Callable[[str], int] | None = None,
        broken: str = "",
    ) -> None:
        super().__init__(Path(), clock, count_tokens)
        self.url = url
        #: why the URL cannot be used (a `${VAR}` not set); "" when it can
        self.broken = broken
        self._warned = False

    def _open(self) -> Engine:
        if self.broken:
            raise UsageUnavailable(self.broken)
        try:
            require_psycopg()
        except MissingExtra as exc:  # not a database problem: say what to install
            self.broken = str(exc)
            raise UsageUnavailable(self.broken) from None
        from gwanjong_gateway.record.store_pg import PostgresStrikeStore

        # Opening the record applies the migration steps (step 4: usage_calls), under the
        # same advisory lock as every other process.
        PostgresStrikeStore(self.url).close()
        return PostgresEngine(self.url, "gwanjong-usage")

    def _insert(self, rows: list[tuple[Any, ...]]) -> None:
        try:
            super()._insert(rows)
        except Exception as exc:
            if not self._warned:
                self._warned = True
                if self.broken:
                    log.warning("usage: figures are dropped: %s", self.broken)
                else:
                    log.warning(
                        "usage: the database at %s is unavailable (%s); usage figures are "
                        "dropped until it answers",
                        self._where(),
                        self._why(exc),
                    )
            return
        if self._warned:
            self._warned = False
            log.info("usage: recording into %s again", self._where())

    def _select(self, start: float, reader: Reader) -> list[tuple[Any, ...]]:
        try:
            return super()._select(start, reader)
        except Exception as exc:
            if self.broken:
                raise UsageUnavailable(f"unavailable: {self.broken}") from None
            raise UsageUnavailable(
                f"unavailable: the usage figures at {self._where()} cannot be read "
                f"({self._why(exc)}); check that PostgreSQL is running there, then try again."
            ) from None

    def _spend(self, start: float, reader: Reader) -> list[DaySpend]:
        try:
            return super()._spend(start, reader)
        except Exception as exc:
            raise UsageUnavailable(
                f"unavailable: the spend figures at {self._where()} cannot be read "
                f"({self._why(exc)}); check that PostgreSQL is running there, then try again."
            ) from None

    def _why(self, exc: BaseException) -> str:
        # libpq's messages never carry the password (pg_errors); ours (broken) neither
        return str(exc) if isinstance(exc, UsageUnavailable) else type(exc).__name__

    def _where(self) -> str:
        if self.broken:
            return "the configured [store] url"
        return pg_errors.where(self.url)


def open_usage(config: GatewayConfig, environ: dict[str, str] | None = None) -> UsageLog:
    """The configured usage record: PostgreSQL with `[store] url`, else `<state_dir>/usage.db`;
    with the spend ledger beside it, and the daily budgets, for its report."""
    usage = _open(config, environ)
    usage.ledger = open_ledger(config, environ)
    usage.budgets = {
        name: micro_usd(limit.daily_usd)
        for name, limit in config.limits.items()
        if limit.daily_usd is not None
    }
    return usage


def _open(config: GatewayConfig, environ: dict[str, str] | None) -> UsageLog:
    if not config.store.url:
        return UsageLog(config.state_dir / USAGE_FILE)
    try:
        return PostgresUsageLog(store_url(config, environ))
    except ConfigError as exc:  # the gateway still serves; only the figures are missing
        return PostgresUsageLog("", broken=f"[store] url: {exc}")


def open_ledger(
    config: GatewayConfig,
    environ: dict[str, str] | None = None,
    clock: Callable[[], float] = time.time,
) -> SpendLedger:
    """The configured spend ledger: PostgreSQL with `[store] url`, else `<state_dir>/usage.db`."""
    if not config.store.url:
        return SpendLedger(config.state_dir / USAGE_FILE, clock)
    try:
        return PostgresSpendLedger(store_url(config, environ), clock)
    except ConfigError as exc:  # refused on use: a budget is then not kept, never passed
        return PostgresSpendLedger("", clock, broken=f"[store] url: {exc}")
