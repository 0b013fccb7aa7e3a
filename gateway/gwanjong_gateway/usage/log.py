"""Usage figures: every platform tool the gateway calls and every gateway tool it serves.

One row per call in `<state_dir>/usage.db` (its own SQLite file, WAL, so `gwanjong usage`
can read it while a gateway runs). Rows are written by a background thread: `record_*`
only puts the event on a queue, so the event loop never waits on the disk, and the o200k
count of a gateway result (CPU work) happens there too.
"""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gwanjong_gateway.paths import private_file
from gwanjong_gateway.record.readers import EVERYONE, Reader
from gwanjong_gateway.usage import spend_report
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
    " rl_remaining, rl_limit, rl_reset, principal) VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p},"
    " {p}, {p}, {p}, {p}, {p}, {p})"
)
SELECT = (
    "SELECT at, scope, platform, tool, kind, ms, tokens, retry_after, message, rl_remaining,"
    " rl_limit, rl_reset FROM {table} WHERE at >= {p}{mine} ORDER BY at"
)


def select_sql(table: str, p: str, reader: Reader) -> str:
    """SELECT of the rows since a time, and (team mode) of one principal only."""
    return SELECT.format(table=table, p=p, mine="" if reader.everyone else f" AND principal = {p}")


def select_args(start: float, reader: Reader) -> tuple[Any, ...]:
    return (start,) if reader.everyone else (start, reader.principal)


class UsageUnavailable(Exception):
    """The usage record cannot be read (its database is down); the message says so."""


class Scope(StrEnum):
    PLATFORM = "platform"
    GATEWAY = "gateway"


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


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100) of already sorted values."""
    if not values:
        return None
    rank = max(1, -(-len(values) * q // 100))  # ceil
    return values[int(rank) - 1]


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
        self._db: Any = None  # sqlite3 here, psycopg in usage_pg
        self._lock = threading.Lock()  # the connection: the writer holds it while it writes
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
        with self._lock:
            self._insert(rows)

    # -- the engine: a subclass (usage_pg) overrides these few -----------------------------

    def _insert(self, rows: list[tuple[Any, ...]]) -> None:
        db = self._connect()
        db.execute("BEGIN")  # one transaction (the connection is in autocommit mode)
        try:
            db.executemany(INSERT.format(table="calls", p="?"), rows)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def _select(self, start: float, reader: Reader) -> list[tuple[Any, ...]]:
        if self._db is None and not self.path.exists():
            return []
        sql = select_sql("calls", "?", reader)
        return self._connect().execute(sql, select_args(start, reader)).fetchall()

    def _counter(self) -> Callable[[str], int]:
        if self._count is None:
            from gwanjong_gateway.usage.token_count import count_tokens

            self._count = count_tokens
        return self._count

    def _connect(self) -> Any:
        if self._db is None:
            private_file(self.path)  # 0600 in a 0700 dir, as the strike record
            db = sqlite3.connect(
                str(self.path), timeout=10, isolation_level=None, check_same_thread=False
            )
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # WAL: durable enough for counters
            db.executescript(SCHEMA)
            have = {r[1] for r in db.execute("PRAGMA table_info(calls)")}
            for name, kind in LATER_COLUMNS.items():
                if name not in have:
                    db.execute(f"ALTER TABLE calls ADD COLUMN {name} {kind}")
            db.execute("DELETE FROM calls WHERE at < ?", (self.clock() - KEEP_DAYS * 86400,))
            self._db = db
        return self._db

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
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
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
            with self._lock:
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


def aggregate(rows: list[tuple[Any, ...]], since_s: float | None, now: float) -> dict[str, Any]:
    platform: dict[tuple[str, str], dict[str, Any]] = {}
    gateway: dict[str, dict[str, Any]] = {}
    latencies: dict[tuple[str, str], list[float]] = {}
    for at, scope, plat, tool, kind, ms, tokens, retry_after, message, *rate in rows:
        if scope == Scope.GATEWAY:
            g = gateway.setdefault(tool, {"tool": tool, "calls": 0, "errors": {}, "tokens": 0})
            g["calls"] += 1
            g["tokens"] += int(tokens or 0)
            if kind:
                g["errors"][kind] = g["errors"].get(kind, 0) + 1
            continue
        key = (plat, tool)
        p = platform.setdefault(
            key,
            {
                "platform": plat,
                "tool": tool,
                "calls": 0,
                "errors": {},
                "last_error": None,
                "rate_limit": None,
                "remaining": None,
            },
        )
        p["calls"] += 1
        if rate and rate[0] is not None:
            # The last budget this tool's platform server read from the headers.
            p["remaining"] = {
                "remaining": rate[0],
                "limit": rate[1],
                "reset_at": rate[2],
                "at": _iso(at),
            }
        latencies.setdefault(key, []).append(float(ms))
        if kind:
            p["errors"][kind] = p["errors"].get(kind, 0) + 1
            p["last_error"] = {"kind": kind, "message": message, "at": _iso(at)}
            if retry_after is not None:
                # What the platform told us it allows (the contract carries no header
                # counts, only the wait a rate_limited error asks for).
                p["rate_limit"] = {
                    "retry_after_s": retry_after,
                    "until": _iso(at + retry_after),
                    "now_limited": at + retry_after > now,
                }
    for key, p in platform.items():
        values = sorted(latencies[key])
        p["p50_ms"] = _ms(percentile(values, 50))
        p["p95_ms"] = _ms(percentile(values, 95))
    for g in gateway.values():
        g["tokens_per_call"] = round(g["tokens"] / g["calls"]) if g["calls"] else 0
    tools = sorted(platform.values(), key=lambda p: (p["platform"], p["tool"]))
    return {
        "since": _iso(now - since_s) if since_s else None,
        "platform_tools": tools,
        "rate_remaining": _tightest_per_platform(tools, now),
        "gateway_tools": sorted(gateway.values(), key=lambda g: g["tool"]),
    }


def _tightest_per_platform(tools: list[dict[str, Any]], now: float) -> dict[str, Any]:
    """Per platform, the known window with the least left whose reset is not past (X
    counts per endpoint: the tightest one is what stops us first)."""
    out: dict[str, Any] = {}
    stamp = _iso(now)
    for t in tools:
        window = t["remaining"]
        if window is None or (window["reset_at"] and window["reset_at"] <= stamp):
            continue  # ISO-8601 Z strings compare in time order
        best = out.get(t["platform"])
        if best is None or window["remaining"] < best["remaining"]:
            out[t["platform"]] = {**window, "tool": t["tool"]}
    return out


def compact_lines(report: dict[str, Any], now: float) -> list[str]:
    """One line per platform, one for the gateway's tools."""
    lines: list[str] = spend_report.compact(report, now)
    by_platform: dict[str, list[dict[str, Any]]] = {}
    for p in report["platform_tools"]:
        by_platform.setdefault(p["platform"], []).append(p)
    for name, tools in by_platform.items():
        calls = sum(t["calls"] for t in tools)
        errors: dict[str, int] = {}
        for t in tools:
            for kind, n in t["errors"].items():
                errors[kind] = errors.get(kind, 0) + n
        worst = max((t["p95_ms"] or 0 for t in tools), default=0)
        line = f"{name}: {calls} calls, p95 {worst:g} ms"
        if errors:
            line += ", errors " + " ".join(f"{k}={n}" for k, n in sorted(errors.items()))
        limited = [
            t["rate_limit"] for t in tools if t["rate_limit"] and t["rate_limit"]["now_limited"]
        ]
        if limited:
            line += f", rate-limited until {max(r['until'] for r in limited)}"
        budget = report.get("rate_remaining", {}).get(name)
        if budget:
            of = f"/{budget['limit']}" if budget["limit"] is not None else ""
            line += f", {budget['remaining']}{of} left ({budget['tool']})"
        lines.append(line)
    if report["gateway_tools"]:
        parts = [
            f"{g['tool']} {g['calls']}x ~{g['tokens_per_call']} tok"
            for g in report["gateway_tools"]
        ]
        lines.append("gateway: " + ", ".join(parts))
    return lines or ["no calls recorded yet"]


def format_report(report: dict[str, Any]) -> str:
    """`gwanjong usage` as text for an 80-column terminal."""
    since = report["since"] or "the start of the record"
    out = [f"Usage since {since}.", "", *spend_report.table(report)]
    if report["platform_tools"]:
        out.append(f"{'platform':<9}{'tool':<14}{'calls':>6}{'p50 ms':>9}{'p95 ms':>9}  errors")
        for p in report["platform_tools"]:
            errors = " ".join(f"{k}={n}" for k, n in sorted(p["errors"].items())) or "-"
            out.append(
                f"{p['platform'][:8]:<9}{p['tool'][:13]:<14}{p['calls']:>6}"
                f"{_num(p['p50_ms']):>9}{_num(p['p95_ms']):>9}  {errors}"
            )
            if p["last_error"]:
                e = p["last_error"]
                out.append(f"    last error {e['at']}: {e['kind']}: {e['message']}"[:78])
            if p["rate_limit"]:
                r = p["rate_limit"]
                out.append(
                    f"    rate limited: retry after {r['retry_after_s']:g} s (until {r['until']})"
                )
            if p["remaining"]:
                w = p["remaining"]
                of = f"/{w['limit']}" if w["limit"] is not None else ""
                resets = f", resets {w['reset_at']}" if w["reset_at"] else ""
                out.append(f"    remaining {w['remaining']}{of}{resets} (as of {w['at']})")
        out.append("")
    if report["gateway_tools"]:
        out.append(f"{'gateway tool':<23}{'calls':>6}{'tokens':>9}{'per call':>9}  errors")
        for g in report["gateway_tools"]:
            errors = " ".join(f"{k}={n}" for k, n in sorted(g["errors"].items())) or "-"
            out.append(
                f"{g['tool'][:22]:<23}{g['calls']:>6}{g['tokens']:>9}{g['tokens_per_call']:>9}  {errors}"
            )
    if not report["platform_tools"] and not report["gateway_tools"]:
        out.append("No calls recorded in this period.")
    return "\n".join(out).rstrip()


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def parse_since(text: str) -> float:
    """`7d`, `12h`, `30m`, `90s` (or plain seconds) -> seconds."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
    text = text.strip().lower()
    try:
        scale = units.get(text[-1:], 0)
        value = float(text[:-1]) * scale if scale else float(text)
    except ValueError:
        raise ValueError(f"--since {text!r}: give a duration like 7d, 12h or 30m") from None
    if value <= 0:
        raise ValueError(f"--since {text!r}: give a positive duration")
    return value


def _iso(at: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def as_json(report: dict[str, Any]) -> str:
    return json.dumps(report, ensure_ascii=False, indent=2)
