"""The strike record's cost, SQLite file vs PostgreSQL, in the same run.

Latency: one strike's record work (the claim: `decide` with every check and the insert,
then `settle` to posted), one after another, median and p95. Throughput: WORKERS
processes, each with its own connection, claiming on ONE platform at once (the
contended case: every claim takes the platform's lock), strikes per second.
PostgreSQL comes from `GWANJONG_BENCH_PG_URL` or `GWANJONG_TEST_PG_URL` (a fresh
database is created and dropped); without one its rows are skipped with the reason
(`eval "$(bash scripts/pg start)"` starts a throwaway server)."""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench.common import table
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import ClaimRequest, StrikeStatus, intent_key

WORKERS = 4


def request(n: int, worker: int, cap: int | None = None) -> ClaimRequest:
    """A live comment claim on a new target by a new author (``cap``: the daily cap the
    claim is counted against; None skips that check)."""
    target, text = f"w{worker}-t{n}", f"reply {worker}/{n}: guard each await."
    row = {
        "intent_key": intent_key("devto", target, "comment", text),
        "platform": "devto",
        "target": target,
        "author": f"author{worker}-{n}",
        "action": "comment",
        "content_hash": "h",
        "content": text,
        "mode": "live",
        "status": StrikeStatus.PENDING,
        "policy": ["by=bench", "mode=live"],
    }
    return ClaimRequest(row=row, live=True, cap=cap, interval_s=0, cooldown_days=7)


def open_store(where: str) -> StrikeStore:
    if where.startswith("postgresql://"):
        from gwanjong_gateway.record.store import PostgresStrikeStore

        return PostgresStrikeStore(where, busy_timeout_s=30)
    return StrikeStore(Path(where), busy_timeout_s=30)


def one_strike(store: StrikeStore, req: ClaimRequest) -> None:
    verdict = store.decide(req, time.time(), insert=True)
    assert verdict.row is not None, verdict
    store.settle(verdict.row.id, StrikeStatus.POSTED, result_url="https://example/1")


def latency(where: str, strikes: int) -> list[float]:
    store = open_store(where)
    try:
        one_strike(store, request(-1, 99))  # warm up: connection, caches
        samples = []
        for n in range(strikes):
            start = time.perf_counter()
            one_strike(store, request(n, 0))
            samples.append(time.perf_counter() - start)
        return samples
    finally:
        store.close()


def _worker(where: str, worker: int, strikes: int, go: Any, done: Any) -> None:
    store = open_store(where)
    try:
        go.wait()
        for n in range(strikes):
            one_strike(store, request(n, worker + 1))
        done.put(time.perf_counter())
    finally:
        store.close()


def throughput(where: str, strikes: int) -> float:
    ctx = mp.get_context("spawn")
    go, done = ctx.Event(), ctx.Queue()
    procs = [
        ctx.Process(target=_worker, args=(where, w, strikes, go, done)) for w in range(WORKERS)
    ]
    for p in procs:
        p.start()
    time.sleep(3)  # every worker connected (a generous margin on a loaded machine)
    start = time.perf_counter()
    go.set()
    ends = [done.get(timeout=600) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        if p.exitcode != 0:
            raise RuntimeError(f"a worker failed (exit {p.exitcode})")
    return WORKERS * strikes / (max(ends) - start)


def measure(where: str, strikes: int) -> dict[str, float]:
    samples = latency(where, strikes)
    ordered = sorted(samples)
    return {
        "median_ms": statistics.median(samples) * 1000,
        "p95_ms": ordered[int(0.95 * (len(ordered) - 1))] * 1000,
        "per_s": throughput(where, strikes),
    }


def fresh_pg(url: str) -> tuple[str, str]:
    import psycopg
    from psycopg import sql

    name = f"gwanjong_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return url.rsplit("/", 1)[0] + "/" + name, name


def drop_pg(url: str, name: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--strikes", type=int, default=200, help="per run and per worker")
    args = parser.parse_args()
    rows: list[list[Any]] = []
    with tempfile.TemporaryDirectory(prefix="gwanjong-bench-") as tmp:
        sqlite = measure(str(Path(tmp) / "gwanjong.db"), args.strikes)
    rows.append(
        [
            "SQLite (WAL file)",
            *(f"{sqlite[k]:.2f}" for k in ("median_ms", "p95_ms")),
            f"{sqlite['per_s']:.0f}",
        ]
    )
    url = os.environ.get("GWANJONG_BENCH_PG_URL") or os.environ.get("GWANJONG_TEST_PG_URL")
    if not url:
        print(
            "PostgreSQL skipped: set GWANJONG_BENCH_PG_URL (or run "
            'eval "$(bash scripts/pg start)") to compare it'
        )
    else:
        db_url, name = fresh_pg(url)
        try:
            pg = measure(db_url, args.strikes)
        finally:
            drop_pg(url, name)
        rows.append(
            ["PostgreSQL", *(f"{pg[k]:.2f}" for k in ("median_ms", "p95_ms")), f"{pg['per_s']:.0f}"]
        )
        rows.append(
            [
                "ratio PostgreSQL / SQLite",
                f"{pg['median_ms'] / sqlite['median_ms']:.2f}",
                f"{pg['p95_ms'] / sqlite['p95_ms']:.2f}",
                f"{pg['per_s'] / sqlite['per_s']:.2f}",
            ]
        )
    table(
        f"strike record: decide + settle per strike ({args.strikes} in a row; "
        f"throughput: {WORKERS} processes x {args.strikes}, one platform)",
        ["record", "latency median ms", "p95 ms", f"strikes/s, {WORKERS} processes"],
        rows,
    )


if __name__ == "__main__":
    main()
