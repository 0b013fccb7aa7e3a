"""Usage figures: every platform tool the gateway calls and every gateway tool it serves.

One row per call in `<state_dir>/usage.db` (its own SQLite file, WAL, so `gwanjong usage`
can read it while a gateway runs). Rows are written by a background thread: `record_*`
only puts the event on a queue, so the event loop never waits on the disk, and the o200k
count of a gateway result (CPU work) happens there too. What the rows add up to, and how
it is shown, is `report.py`'s.
"""

from __future__ import annotations

import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gwanjong_gateway.record.engine import Engine, Lazy, SqliteEngine
from gwanjong_gateway.record.readers import EVERYONE, Reader
from gwanjong_gateway.usage import spend_report
from gwanjong_gateway.usage.report import Scope, aggregate, compact_lines
from gwanjong_shared.contract.rate import RateWindow
from gwanjong_shared.kit.logs import redact

if TYPE_CHECKING:
    from gwanjong_gateway.usage.ledger import DaySpend, SpendLedger

log = logging.getLogger(__name__)

USAGE_FILE = "usage.db"
#: only this much of a result is tokenized; longer results are extrapolated from it
TOKEN_SAMPLE_CHARS = 16_000
#: rows older than this are dropped when the file is opened
KEEP_DAYS = 90

SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    at REAL NOT NULL,
    scope TEXT NOT NULL,          -- 'platform' | 'gateway'
    platform TEXT NOT NULL,       -- '' for gateway tools
    tool TEXT NOT NULL,
    kind TEXT NOT NULL,           -- '' on success, else the error kind
    ms REAL NOT NULL,
    tokens INTEGER,               -- gateway tools: o200k tokens of the result
    retry_after REAL,             -- rate_limited: what the platform asked for
    message TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS calls_at ON calls (at);
"""
# The platform's budget as its server reported it (the result's _meta), and the signed-in
# caller the call was made for ('' without sign-in: the local user, the gateway itself);
# added later, so older files get the columns on open.
RATE_COLUMNS = {"rl_remaining": "INTEGER", "rl_limit": "INTEGER", "rl_reset": "TEXT"}
LATER_COLUMNS = {**RATE_COLUMNS, "principal": "TEXT NOT NULL DEFAULT ''"}


INSERT = (
    "INSERT INTO {table} (at, scope, platform, tool, kind, ms, tokens, retry_after, message,"
    " rl_remaining, rl_limit, rl_reset, principal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
    " ?, ?)"
)
SELECT = (
    "SELECT at, scope, platform, tool, kind, ms, tokens, retry_after, message, rl_remaining,"
    " rl_limit, rl_reset FROM {table} WHERE at >= ?{mine} ORDER BY at"
)


def select_sql(table: str, reader: Reader) -> str:
    """SELECT of the rows since a time, and (team mode) of one principal only."""
    return SELECT.format(table=table, mine="" if reader.everyone else " AND principal = ?")


def select_args(start: float, reader: Reader) -> tuple[Any, ...]:
    return (start,) if reader.everyone else (start, reader.principal)


class UsageUnavailable(Exception):
    """The usage record cannot be read (its database is down); the message says so."""


@dataclass(frozen=True)
class Event:
    at: float
    scope: Scope
    platform: str
    tool: str
    kind: str  # "" = success
    ms: float
    text: str = ""  # gateway results: the sample to tokenize
    text_chars: int = 0  # ... and the full length it came from
    retry_after: float | None = None
    message: str = ""
    rate: RateWindow | None = None
    principal: str = ""  # the signed-in caller ('' without sign-in)


def estimate_tokens(sample: str, total_chars: int, count: Callable[[str], int]) -> int:
    """o200k tokens of a result from its first TOKEN_SAMPLE_CHARS, scaled to its length."""
    if not sample:
        return 0
    tokens = count(sample)
    if total_chars > len(sample):
        tokens = round(tokens * total_chars / len(sample))
    return tokens


class UsageLog:
    """The usage record. `record_*` never blocks; `report` reads what has been written."""

    def __init__(
        self,
        path: Path,
        clock: Callable[[], float] = time.time,
        count_tokens: Callable[[str], int] | None = None,
    ) -> None:
        self.path = path
        self.clock = clock
        self._count = count_tokens
        self._engine = Lazy(self._connect)  # opened by the first write or read
        # Starting the writer has a lock of its own: a call records its figures on the
        # event loop, and must not wait behind a writer stuck on a frozen database.
        self._start_lock = threading.Lock()
        self._queue: queue.Queue[Event | None] = queue.Queue()
        self._writer: threading.Thread | None = None
        #: the spend ledger read for the report's `spend`, and each platform's daily budget
        #: (micro-dollars); open_usage sets both
        self.ledger: SpendLedger | None = None
        self.budgets: dict[str, int] = {}

    # -- writing (never on the event loop) -----------------------------------------------

    def record_platform(
        self,
        platform: str,
        tool: str,
        kind: str,
        seconds: float,
        message: str = "",
        retry_after: float | None = None,
        rate: RateWindow | None = None,
        principal: str = "",
    ) -> None:
        self._put(
            Event(
                self.clock(),
                Scope.PLATFORM,
                platform,
                tool,
                kind,
                seconds * 1000,
                retry_after=retry_after,
                message=redact(message)[:200],
                rate=rate,
                principal=principal,
            )
        )

    def record_gateway(
        self, tool: str, kind: str, seconds: float, result_text: str, principal: str = ""
    ) -> None:
        self._put(
            Event(
                self.clock(),
                Scope.GATEWAY,
                "",
                tool,
                kind,
                seconds * 1000,
                text=result_text[:TOKEN_SAMPLE_CHARS],
                text_chars=len(result_text),
                principal=principal,
            )
        )

    def _put(self, event: Event) -> None:
        with self._start_lock:
            if self._writer is None:
                self._writer = threading.Thread(
                    target=self._drain, name="gwanjong-usage", daemon=True
                )
                self._writer.start()
        self._queue.put(event)

    def _drain(self) -> None:
        while True:
            # Whatever is waiting goes in one transaction: a busy gateway costs one commit
            # per batch, not one per call.
            batch = [self._queue.get()]
            while True:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            events = [e for e in batch if e is not None]
            try:
                if events:
                    self._write(events)
            except Exception as exc:  # usage figures must never break a call
                log.warning("usage: could not record %d calls: %s", len(events), type(exc).__name__)
            finally:
                for _ in batch:
                    self._queue.task_done()
            if len(events) < len(batch):
                return

    def _write(self, events: list[Event]) -> None:
        rows = [
            (
                e.at,
                e.scope.value,
                e.platform,
                e.tool,
                e.kind,
                e.ms,
                estimate_tokens(e.text, e.text_chars, self._counter())
                if e.scope is Scope.GATEWAY
                else None,
                e.retry_after,
                e.message,
                e.rate.remaining if e.rate else None,
                e.rate.limit if e.rate else None,
                e.rate.reset_at if e.rate else None,
                e.principal,
            )
            for e in events
        ]
        self._insert(rows)

    # -- the engine: a subclass (usage/pg.py) overrides these few ------------------------

    TABLE = "calls"

    def _open(self) -> Engine:
        """The engine, its schema in place (older files get the later columns)."""
        engine = SqliteEngine(self.path, busy_timeout_s=10)
        engine.script(SCHEMA)
        have = {r[1] for r in engine.tuples("PRAGMA table_info(calls)")}
        for name, kind in LATER_COLUMNS.items():
            if name not in have:
                engine.x(f"ALTER TABLE calls ADD COLUMN {name} {kind}")
        return engine

    def _connect(self) -> Engine:
        engine = self._open()
        engine.x(f"DELETE FROM {self.TABLE} WHERE at < ?", (self.clock() - KEEP_DAYS * 86400,))
        return engine

    def _insert(self, rows: list[tuple[Any, ...]]) -> None:
        with self._engine.use() as db:
            db.many(INSERT.format(table=self.TABLE), rows)

    def _select(self, start: float, reader: Reader) -> list[tuple[Any, ...]]:
        if not self._engine.opened and not self.path.exists():
            return []
        with self._engine.use() as db:
            return db.tuples(select_sql(self.TABLE, reader), select_args(start, reader))

    def _counter(self) -> Callable[[str], int]:
        if self._count is None:
            from gwanjong_gateway.usage.token_count import count_tokens

            self._count = count_tokens
        return self._count

    def flush(self) -> None:
        """Wait until every recorded call is on disk."""
        self._queue.join()

    def close(self) -> None:
        self.flush()
        with self._start_lock:
            writer, self._writer = self._writer, None
        if writer is not None:
            self._queue.put(None)
            writer.join(timeout=10)
        self._engine.close()
        if self.ledger is not None:
            self.ledger.close()

    # -- reading -------------------------------------------------------------------------

    def report(self, since_s: float | None = None, reader: Reader = EVERYONE) -> dict[str, Any]:
        """Every figure, per platform tool and per gateway tool, since `since_s` ago, of
        the calls ``reader`` may read (team mode: their own)."""
        self.flush()
        start = self.clock() - since_s if since_s else 0.0
        rows: list[tuple[Any, ...]] = []
        if not reader.reads_nothing:
            rows = self._select(start, reader)
        report = aggregate(rows, since_s, self.clock())
        report["spend"] = spend_report.section(self._spend(start, reader), self.budgets)
        return report

    def _spend(self, start: float, reader: Reader) -> list[DaySpend]:
        if self.ledger is None or not self.path.exists():  # reading creates no file
            return []
        return self.ledger.by_day(start, reader)

    def compact(self, since_s: float = 7 * 86400, reader: Reader = EVERYONE) -> list[str]:
        """The few lines `status` shows."""
        try:
            return compact_lines(self.report(since_s, reader), self.clock())
        except UsageUnavailable as exc:  # status must answer while the database is down
            return [str(exc)]
        except (sqlite3.Error, OSError) as exc:  # a read-only state_dir: status still answers
            return [f"usage not recorded: {self.path} cannot be opened for writing ({exc})"]
