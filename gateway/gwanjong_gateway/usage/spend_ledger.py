"""The spend ledger, in micro-dollars. `reserve` sums the day's rows and inserts in one
serialised transaction (BEGIN IMMEDIATE; PostgreSQL: an advisory lock per platform), so
no two calls anywhere both pass a budget. A call that never settles keeps its reservation:
the budget errs on the safe side.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from gwanjong_gateway.extras import MissingExtra
from gwanjong_gateway.record.readers import EVERYONE, Reader
from gwanjong_gateway.record.sql.engine import (
    Engine,
    Lazy,
    PostgresEngine,
    SqliteEngine,
    Unavailable,
    columns,
)
from gwanjong_gateway.record.sql.migrations import LITE, PG, USAGE, migrate

R = TypeVar("R")
#: rows older than this are dropped when a usage table is opened
KEEP_DAYS = 90


class Where:
    """usage.db at ``path``, or PostgreSQL at ``url``; ``broken``: why the URL cannot be used."""

    def __init__(self, path: Path | None = None, url: str = "", broken: str = "") -> None:
        self.path, self.url, self.broken = path, url, broken
        self.postgres = path is None
        self.dialect = PG if self.postgres else LITE

    def exists(self) -> bool:
        """Whether there is anything to read (reading creates no file)."""
        return self.path is None or self.path.exists()

    def describe(self) -> str:
        """Where, never with a password."""
        if self.path is not None:
            return str(self.path)
        if self.broken:
            return "the configured [store] url"
        from gwanjong_gateway.record.sql.pg_errors import where

        return where(self.url)

    def open(self, name: str) -> Engine:
        """An engine here, its usage steps applied. Raises Unavailable when the URL cannot be
        used (``broken``, or psycopg not installed), else the database's own error."""
        if self.path is not None:
            engine: Engine = SqliteEngine(self.path, busy_timeout_s=10)
        elif self.broken:
            raise Unavailable(self.broken)
        else:
            try:
                engine = PostgresEngine(self.url, name)
            except MissingExtra as exc:  # not a database problem: say what to install
                self.broken = str(exc)
                raise Unavailable(self.broken) from None
        try:
            migrate(engine, USAGE)
        except BaseException:
            engine.close()
            raise
        return engine


class UsageTable:
    """One usage table (``kind``: the usage log's `calls` or the ledger's `spend`) at a
    `Where`, its engine opened on first use, when the rows older than KEEP_DAYS go."""

    kind = ""
    name = ""  # the connection's, as PostgreSQL shows it

    def __init__(self, where: Path | Where, clock: Callable[[], float] = time.time) -> None:
        self.where = where if isinstance(where, Where) else Where(where)
        self.table: str = getattr(self.where.dialect, self.kind)
        self.clock = clock
        self._engine = Lazy(self._connect)

    def _connect(self) -> Engine:
        engine = self.where.open(self.name)
        engine.x(f"DELETE FROM {self.table} WHERE at < ?", (self.clock() - KEEP_DAYS * 86400,))
        return engine

    def close(self) -> None:
        self._engine.close()

    @contextmanager
    def _each(
        self, cls: type[R], since: float, reader: Reader, order: str = ""
    ) -> Generator[Iterator[R]]:
        """Every row since ``since`` of the calls ``reader`` may read (team mode: their own),
        one at a time (`Engine.each`); closed on leaving, so this thread frees the lock even
        when a read fails half-way."""
        if reader.reads_nothing:
            yield iter(())
            return
        mine = "" if reader.everyone else " AND principal = ?"
        args = (since,) if reader.everyone else (since, reader.principal)
        sql = f"SELECT {', '.join(columns(cls))} FROM {self.table} WHERE at >= ?{mine}{order}"
        with self._engine.use() as db, closing(db.each(cls, sql, args)) as rows:
            yield rows


@dataclass(frozen=True)
class Charge:
    """One priced call's row: reserved while it runs, its true cost once settled."""

    at: float
    platform: str
    tool: str
    principal: str
    micros: int
    settled: int = 0


@dataclass(frozen=True)
class Over:
    """The budget would be passed: today's spend (reservations in flight included) and the
    budget, in micro-dollars."""

    spent: int
    budget: int


@dataclass(frozen=True)
class DaySpend:
    day: str  # YYYY-MM-DD, UTC
    platform: str
    micros: int
    calls: int
    in_flight: int  # calls not settled yet (their reservation counts)


class SpendLedger(UsageTable):
    """The ledger: `<state_dir>/usage.db`'s `spend` (beside the usage log's `calls`), or
    with `[store] url` PostgreSQL's `usage_spend`, where every replica reserves."""

    kind, name = "spend", "gwanjong-spend"

    # -- the ledger ---------------------------------------------------------------------

    def reserve(
        self,
        platform: str,
        tool: str,
        principal: str,
        micros: int,
        budget: int | None,
        day_start: float,
    ) -> int | Over:
        """Reserve ``micros`` for a call starting now: its row id, or `Over` when today's spend
        plus ``micros`` would pass ``budget``. Sum and insert are one step for every process."""
        with self._engine.use() as db, db.transaction(True, f"gwanjong-spend:{platform}"):
            if budget is not None:
                spent = self._spent(db, platform, day_start)
                if spent + micros > budget:
                    return Over(spent=spent, budget=budget)
            charge = Charge(self.clock(), platform, tool, principal, micros)
            return int(db.insert(self.table, [charge], returning="id"))

    def _spent(self, db: Engine, platform: str, since: float) -> int:
        return int(
            db.value(
                f"SELECT COALESCE(SUM(micros), 0) FROM {self.table} WHERE platform = ? AND at >= ?",
                (platform, since),
            )
        )

    def spent(self, platform: str, since: float) -> int:
        """The platform's spend since ``since`` (reservations in flight included)."""
        with self._engine.use() as db:
            return self._spent(db, platform, since)

    def settle(self, row_id: int, micros: int) -> None:
        """The call's true cost in place of its reservation."""
        with self._engine.use() as db:
            db.x(f"UPDATE {self.table} SET micros = ?, settled = 1 WHERE id = ?", (micros, row_id))

    def by_day(self, since: float, reader: Reader = EVERYONE) -> list[DaySpend]:
        """Spend per UTC day and platform since ``since``, of the calls ``reader`` may read
        (team mode: their own), oldest day first."""
        out: dict[tuple[str, str], list[int]] = {}
        with self._each(Charge, since, reader) as rows:
            for row in rows:
                key = (time.strftime("%Y-%m-%d", time.gmtime(float(row.at))), row.platform)
                figures = out.setdefault(key, [0, 0, 0])
                figures[0] += int(row.micros)
                figures[1] += 1
                figures[2] += 0 if row.settled else 1
        return [DaySpend(day, p, m, n, f) for (day, p), (m, n, f) in sorted(out.items())]
