"""The usage log: one row per call, written by a background thread so the event loop never
waits on the database (woken once per batch; best effort: a batch that fails is dropped, warned once).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gwanjong_gateway.record.readers import EVERYONE, Reader
from gwanjong_gateway.record.sql.engine import SchemaError, Unavailable
from gwanjong_gateway.usage.report import Call, Scope, aggregate, compact_lines, spend_section
from gwanjong_gateway.usage.spend_ledger import DaySpend, SpendLedger, UsageTable, Where
from gwanjong_shared.contract.rate import RateWindow
from gwanjong_shared.kit.logs import redact

if TYPE_CHECKING:
    from gwanjong_gateway.config import GatewayConfig

log = logging.getLogger(__name__)

USAGE_FILE = "usage.db"
#: only this much of a result is tokenized; longer results are extrapolated from it
TOKEN_SAMPLE_CHARS = 16_000
#: how long the woken writer lets calls gather before it writes them (`flush` cuts it short)
BATCH_S = 0.05

#: what the writer takes: a call (with a gateway result's sample to tokenize and its full
#: length), a flush's event to set once what came before it is written, or None: stop
Item = tuple[Call, str, int] | threading.Event | None


class UsageUnavailable(Exception):
    """The usage record cannot be read (its database is down); the message says so."""


def estimate_tokens(sample: str, total_chars: int, count: Callable[[str], int]) -> int:
    """o200k tokens of a result from its first TOKEN_SAMPLE_CHARS, scaled to its length."""
    if not sample:
        return 0
    return round(count(sample) * max(total_chars, len(sample)) / len(sample))


def why(exc: BaseException) -> str:
    # libpq's messages never carry the password (pg_errors); ours (Unavailable) neither
    return str(exc) if isinstance(exc, Unavailable | SchemaError) else type(exc).__name__


def read_failed(where: Where, what: str, exc: Exception) -> Exception:
    """What a failed read raises: `UsageUnavailable`, saying where and why (the caller shows
    it: status's lines, `gwanjong usage`), never the error itself as a traceback."""
    if where.broken:
        return UsageUnavailable(f"unavailable: {where.broken}")
    if not where.postgres:  # the file's own error (damaged, read-only, from a newer gwanjong)
        return UsageUnavailable(
            f"unavailable: the {what} figures in {where.path} cannot be read ({exc})"
        )
    return UsageUnavailable(
        f"unavailable: the {what} figures at {where.describe()} cannot be read ({why(exc)}); "
        "check that PostgreSQL is running there, then try again."
    )


class UsageLog(UsageTable):
    """The usage record. `record_*` never blocks; `report` reads what has been written."""

    kind, name = "calls", "gwanjong-usage"

    def __init__(
        self,
        where: Path | Where,
        clock: Callable[[], float] = time.time,
        count_tokens: Callable[[str], int] | None = None,
    ) -> None:
        super().__init__(where, clock)  # the engine is opened by the first write or read
        self.path = self.where.path
        self._count = count_tokens
        self._failing = False
        # Starting the writer has a lock of its own: a call records its figures on the
        # event loop, and must not wait behind a writer stuck on a frozen database.
        self._start_lock = threading.Lock()
        # deque.append and popleft are atomic: `record_*` takes no lock to hand a call over
        self._pending: deque[Item] = deque()
        self._wake = threading.Event()  # set: something waits; set again only once taken
        self._hurry = threading.Event()  # a flush waits: write without gathering more
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
        call = Call(
            self.clock(),
            Scope.PLATFORM,
            platform,
            tool,
            kind,
            seconds * 1000,
            retry_after=retry_after,
            message=redact(message)[:200],
            rl_remaining=rate.remaining if rate else None,
            rl_limit=rate.limit if rate else None,
            rl_reset=rate.reset_at if rate else None,
            principal=principal,
        )
        self._put((call, "", 0))

    def record_gateway(
        self, tool: str, kind: str, seconds: float, result_text: str, principal: str = ""
    ) -> None:
        call = Call(
            self.clock(), Scope.GATEWAY, "", tool, kind, seconds * 1000, principal=principal
        )
        self._put((call, result_text[:TOKEN_SAMPLE_CHARS], len(result_text)))

    def _put(self, item: Item) -> None:
        if self._writer is None:
            with self._start_lock:
                if self._writer is None:
                    self._writer = threading.Thread(
                        target=self._drain, name="gwanjong-usage", daemon=True
                    )
                    self._writer.start()
        self._pending.append(item)
        if not self._wake.is_set():  # the writer is asleep: wake it once for the batch
            self._wake.set()

    def _drain(self) -> None:
        while True:
            self._wake.wait()
            # Let the calls of a busy moment gather: one wake-up and one transaction for
            # the batch, not one per call.
            self._hurry.wait(BATCH_S)
            self._hurry.clear()
            self._wake.clear()  # before taking: a call appended after this wakes it again
            batch: list[Item] = []
            while self._pending:  # this thread is the only one that takes
                batch.append(self._pending.popleft())
            calls = [
                c._replace(tokens=estimate_tokens(text, n, self._counter()))
                if c.scope == Scope.GATEWAY
                else c
                for c, text, n in (item for item in batch if isinstance(item, tuple))
            ]
            try:
                if calls:
                    self._write(calls)
            finally:
                for item in batch:
                    if isinstance(item, threading.Event):
                        item.set()
            if None in batch:
                return

    def _write(self, calls: list[Call]) -> None:
        try:
            # The write lock first: a deferred transaction that reads, then writes, fails at
            # once if another process wrote in between (SQLite's busy wait does not cover it).
            with self._engine.use() as db, db.transaction(immediate=True):
                db.insert(self.table, calls)
        except Exception as exc:  # usage figures must never break a call
            if not self._failing:
                self._failing = True
                if self.where.broken:
                    log.warning("usage: figures are dropped: %s", self.where.broken)
                else:
                    log.warning(
                        "usage: the database at %s is unavailable (%s); usage figures are "
                        "dropped until it answers",
                        self.where.describe(),
                        why(exc),
                    )
            return
        if self._failing:
            self._failing = False
            log.info("usage: recording into %s again", self.where.describe())

    def _counter(self) -> Callable[[str], int]:
        if self._count is None:
            from gwanjong_gateway.usage.token_count import count_tokens

            self._count = count_tokens
        return self._count

    def flush(self) -> None:
        """Wait until every recorded call is on disk (or dropped: usage is best effort)."""
        if self._writer is None:
            return
        written = threading.Event()
        self._put(written)
        self._hurry.set()
        written.wait()

    def close(self) -> None:
        self.flush()
        with self._start_lock:
            writer, self._writer = self._writer, None
        if writer is not None:
            self._pending.append(None)
            self._hurry.set()
            self._wake.set()
            writer.join(timeout=10)
        super().close()
        if self.ledger is not None:
            self.ledger.close()

    # -- reading -------------------------------------------------------------------------

    def report(self, since_s: float | None = None, reader: Reader = EVERYONE) -> dict[str, Any]:
        """Every figure, per platform tool and per gateway tool, since `since_s` ago, of
        the calls ``reader`` may read (team mode: their own)."""
        self.flush()
        start = self.clock() - since_s if since_s else 0.0
        report = aggregate((), since_s, self.clock())
        if self._engine.opened or self.where.exists():
            try:  # each row read, counted and let go
                with self._each(Call, start, reader, " ORDER BY at") as rows:
                    report = aggregate(rows, since_s, self.clock())
            except Exception as exc:
                raise read_failed(self.where, "usage", exc) from None
        report["spend"] = spend_section(self._spend(start, reader), self.budgets)
        return report

    def _spend(self, start: float, reader: Reader) -> list[DaySpend]:
        if self.ledger is None or not self.where.exists():  # reading creates no file
            return []
        try:
            return self.ledger.by_day(start, reader)
        except Exception as exc:
            raise read_failed(self.where, "spend", exc) from None

    def compact(self, since_s: float = 7 * 86400, reader: Reader = EVERYONE) -> list[str]:
        """The few lines `status` shows."""
        try:
            return compact_lines(self.report(since_s, reader), self.clock())
        except UsageUnavailable as exc:  # status must answer while the database is down
            return [str(exc)]


def where_of(config: GatewayConfig, environ: dict[str, str] | None = None) -> Where:
    """Where the usage log and spend ledger live. A URL that cannot be expanded leaves the
    gateway serving: the figures are missing, and a budget is refused, never passed."""
    if not config.store.url:
        return Where(config.state_dir / USAGE_FILE)
    from gwanjong_gateway.config import ConfigError
    from gwanjong_gateway.record.records import store_url

    try:
        return Where(url=store_url(config, environ))
    except ConfigError as exc:
        return Where(broken=f"[store] url: {exc}")


def open_usage(config: GatewayConfig, environ: dict[str, str] | None = None) -> UsageLog:
    """The configured usage record, with the spend ledger beside it, and the daily budgets,
    for its report."""
    from gwanjong_gateway.usage.prices import daily_budgets

    usage = UsageLog(where_of(config, environ))
    usage.ledger = SpendLedger(where_of(config, environ))
    usage.budgets = daily_budgets(config)
    return usage
