"""Strike's decision and claim on a full record vs an empty one, in the same run.

What one strike asks the record before it writes (`decide` with every check: the target
or post already held, the author cool-down, today's count against the cap, the last
write for the minimum interval) and the claim itself (the insert), in one transaction:
median and p95 over --claims claims on each record, alternating between the two, each on a new target by a new
author. The baseline is the same claims on an empty record of the same engine; the full
record holds --rows strikes (default 1,000,000), written by bulk SQL (a recursive CTE in
SQLite, `generate_series` in PostgreSQL), not through the API: four platforms, a year
of history (some of it today), 20,000 authors, mostly posted comments, some posts,
upvotes, dry-runs and refusals. Target: full / empty <= 2.

PostgreSQL comes from `GWANJONG_BENCH_PG_URL` or `GWANJONG_TEST_PG_URL` (a fresh database
is created and dropped); without one its rows are skipped with the reason."""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import table
from bench.record.store import drop_pg, fresh_pg, open_store, request
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import ClaimRequest

YEAR_S = 365 * 86400
AUTHORS = 20_000

# One generated row per n: platform n % 4; action: 1 in 10 a post (no target), 1 in 10 an
# upvote, else a comment; status: 1 in 20 dry-run, 1 in 50 refused, else posted; created
# n seconds * (a year / rows) ago, so the newest rows are today's.
_COLUMNS = (
    "intent_key, platform, target, author, action, content_hash, content, mode, status, "
    "policy, created_at, updated_at"
)


def _select(n: str, now: float, rows: int, concat: Callable[[str, str], str]) -> str:
    step = YEAR_S / rows
    platform = f"(CASE {n} % 4 WHEN 0 THEN 'devto' WHEN 1 THEN 'bluesky' WHEN 2 THEN 'twitter' ELSE 'reddit' END)"
    action = (
        f"(CASE WHEN {n} % 10 = 0 THEN 'post' WHEN {n} % 10 = 1 THEN 'upvote' ELSE 'comment' END)"
    )
    status = f"(CASE WHEN {n} % 20 = 3 THEN 'dry-run' WHEN {n} % 50 = 7 THEN 'refused' ELSE 'posted' END)"
    target = f"(CASE WHEN {n} % 10 = 0 THEN '' ELSE {concat('filled-t', n)} END)"
    return (
        f"SELECT {concat('filled-k', n)}, {platform}, {target}, "
        f"{concat('filled-a', f'({n} % {AUTHORS})')}, {action}, 'h', "
        f"{concat('filled reply number ', n)}, 'live', {status}, '[\"by=bench\"]', "
        f"{now} - {n} * {step}, {now} - {n} * {step}"
    )


def fill_sqlite(path: Path, rows: int, now: float) -> None:
    import sqlite3

    StrikeStore(path).close()  # the schema, by the product's migrations
    con = sqlite3.connect(path)
    try:
        select = _select("n", now, rows, lambda a, b: f"'{a}' || {b}")
        con.execute(
            f"WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < {rows}) "
            f"INSERT INTO strikes ({_COLUMNS}) {select} FROM seq"
        )
        con.commit()
        con.execute("ANALYZE")
        con.commit()
    finally:
        con.close()


def fill_pg(url: str, rows: int, now: float) -> None:
    import psycopg

    open_store(url).close()  # the schema, by the product's migrations
    with psycopg.connect(url, autocommit=True) as con:
        select = _select("n", now, rows, lambda a, b: f"'{a}' || {b}::text")
        con.execute(
            f"INSERT INTO strikes ({_COLUMNS}) {select} "  # type: ignore[arg-type]
            f"FROM generate_series(1, {rows}) AS n"
        )
        con.execute("VACUUM ANALYZE strikes")


def claim(n: int) -> ClaimRequest:
    """bench/record/store.py's claim, counted against a daily cap too (every check runs)."""
    return request(n, 0, cap=10_000)


def claims(empty_at: str, full_at: str, count: int) -> tuple[list[float], list[float]]:
    """Seconds per decide-and-claim on each record, ``count`` each after a few to warm up,
    alternating between the two so that the machine's load weighs on both alike."""
    stores = [open_store(empty_at), open_store(full_at)]
    try:
        for store in stores:
            for n in range(5):
                store.decide(claim(-1 - n), time.time(), insert=True)
        samples: tuple[list[float], list[float]] = ([], [])
        for n in range(count):
            for store, out in zip(stores, samples, strict=True):
                req = claim(n)
                start = time.perf_counter()
                verdict = store.decide(req, time.time(), insert=True)
                out.append(time.perf_counter() - start)
                assert verdict.row is not None, verdict
        return samples
    finally:
        for store in stores:
            store.close()


#: what one scout asks about: the posts it found (about ten per platform)
SCOUTED = [
    (p, str(n)) for p in ("devto", "bluesky", "twitter", "reddit") for n in range(0, 1000, 100)
]


def acted_reads(empty_at: str, full_at: str, count: int = 5) -> tuple[list[float], list[float]]:
    """Seconds per `acted_among` for 40 posts (what one scout asks the record: which of
    the posts it found are acted on already), on each record, alternating."""
    stores = [open_store(empty_at), open_store(full_at)]
    try:
        samples: tuple[list[float], list[float]] = ([], [])
        for _ in range(count):
            for store, out in zip(stores, samples, strict=True):
                start = time.perf_counter()
                store.acted_among(SCOUTED)
                out.append(time.perf_counter() - start)
        return samples
    finally:
        for store in stores:
            store.close()


def summary(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(samples) * 1000, ordered[int(0.95 * (len(ordered) - 1))] * 1000


def row(engine: str, empty: list[float], full: list[float], fill_s: float) -> list[Any]:
    (em, ep), (fm, fp) = summary(empty), summary(full)
    verdict = "✔" if fm / em <= 2 else "✘"
    return [
        engine,
        f"{em:.2f} ({ep:.2f})",
        f"{fm:.2f} ({fp:.2f})",
        f"{fm / em:.2f} ({fp / ep:.2f}) {verdict}",
        f"{fill_s:.0f}",
    ]


def acted_row(engine: str, empty: list[float], full: list[float]) -> list[Any]:
    em, fm = statistics.median(empty) * 1000, statistics.median(full) * 1000
    return [engine, f"{em:.2f}", f"{fm:.2f}", f"{fm / em:.2f}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000, help="strikes in the full record")
    parser.add_argument("--claims", type=int, default=300, help="claims measured per record")
    args = parser.parse_args()
    now = time.time()
    rows: list[list[Any]] = []
    scout_rows: list[list[Any]] = []
    with tempfile.TemporaryDirectory(prefix="gwanjong-bench-") as tmp:
        start = time.perf_counter()
        fill_sqlite(Path(tmp) / "full.db", args.rows, now)
        fill_s = time.perf_counter() - start
        empty, full = claims(str(Path(tmp) / "empty.db"), str(Path(tmp) / "full.db"), args.claims)
        rows.append(row("SQLite (WAL file)", empty, full, fill_s))
        scout_rows.append(
            acted_row(
                "SQLite", *acted_reads(str(Path(tmp) / "empty.db"), str(Path(tmp) / "full.db"))
            )
        )
    url = os.environ.get("GWANJONG_BENCH_PG_URL") or os.environ.get("GWANJONG_TEST_PG_URL")
    if not url:
        print(
            "PostgreSQL skipped: set GWANJONG_BENCH_PG_URL (or run "
            'eval "$(bash scripts/pg start)") to compare it'
        )
    else:
        empty_url, empty_name = fresh_pg(url)
        full_url, full_name = fresh_pg(url)
        try:
            start = time.perf_counter()
            fill_pg(full_url, args.rows, now)
            fill_s = time.perf_counter() - start
            empty, full = claims(empty_url, full_url, args.claims)
            rows.append(row("PostgreSQL", empty, full, fill_s))
            scout_rows.append(acted_row("PostgreSQL", *acted_reads(empty_url, full_url)))
        finally:
            drop_pg(url, empty_name)
            drop_pg(url, full_name)
    table(
        f"strike's decision and claim (decide: every check + the insert, one transaction), "
        f"ms per claim, median (p95) of {args.claims}; full = {args.rows:,} strikes",
        ["record", "empty", "full", "full / empty (target <= 2)", "bulk fill s"],
        rows,
    )

    table(
        "what each scout asks the record (acted_among: which of the 40 posts it found are "
        "acted on already), ms, median of 5",
        ["record", "empty", "full", "full / empty"],
        scout_rows,
    )


if __name__ == "__main__":
    main()
