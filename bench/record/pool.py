"""Many users at once on one gateway's strike record: one worker thread vs the pool.

USERS signed-in users (concurrent tasks on one event loop, as the gateway serves them)
each do ROUNDS dry-run strikes' record work through `Records.run`: `paused` (the strike
check), then `decide` with the insert of the `dry_run` row, then `history` (what the
answer shows). Each number is one strike's wall time as its user sees it, from its first
record call to its last, queueing included. The baseline is the same run with
`[store] pool_size = 1` (every call of every user behind one thread, as before the pool).
Platform calls are not in it (dry-run calls none); PostgreSQL from `GWANJONG_BENCH_PG_URL`
or `GWANJONG_TEST_PG_URL`."""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from bench.common import table
from bench.record.store import drop_pg, fresh_pg
from gwanjong_gateway.config import StoreSection
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import ClaimRequest, StrikeStatus, intent_key

USERS = 50
PLATFORMS = ["devto", "bluesky", "twitter", "reddit"]


def request(user: int, n: int) -> ClaimRequest:
    platform = PLATFORMS[user % len(PLATFORMS)]
    target, text = f"u{user}-t{n}", f"reply {user}/{n}: guard each await."
    row = {
        "intent_key": intent_key(platform, target, "comment", text),
        "platform": platform,
        "target": target,
        "author": f"author{user}-{n}",
        "action": "comment",
        "content_hash": "h",
        "content": text,
        "mode": "dry-run",
        "status": StrikeStatus.DRY_RUN,
        "policy": [f"by=user{user}", "mode=dry-run"],
    }
    return ClaimRequest(row=row, live=False, cap=None, interval_s=0, cooldown_days=7)


async def run(url: str, pool_size: int, rounds: int) -> list[float]:
    with tempfile.TemporaryDirectory(prefix="gwanjong-bench-") as tmp:
        settings = StoreSection(url=url, pool_size=pool_size, call_deadline_s=600)
        records = Records(Path(tmp) / "unused.db", url=url, store=settings)
        assert await records.open()
        samples: list[float] = []

        async def user(u: int) -> None:
            for n in range(rounds):
                req = request(u, n)
                start = time.perf_counter()
                await records.run(StrikeStore.paused, req.row["platform"])
                await records.run(StrikeStore.decide, req, time.time(), True)
                await records.run(StrikeStore.history, platform=req.row["platform"], limit=5)
                samples.append(time.perf_counter() - start)

        try:
            async with anyio.create_task_group() as tg:
                for u in range(USERS):
                    tg.start_soon(user, u)
        finally:
            records.close()
        return samples


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[int(q * (len(ordered) - 1))] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=10, help="dry-run strikes per user")
    parser.add_argument("--pool", type=int, default=StoreSection().pool_size)
    args = parser.parse_args()
    url = os.environ.get("GWANJONG_BENCH_PG_URL") or os.environ.get("GWANJONG_TEST_PG_URL")
    if not url:
        print('skipped: set GWANJONG_BENCH_PG_URL (or eval "$(bash scripts/pg start)")')
        return
    rows: list[list[Any]] = []
    results: dict[int, list[float]] = {}
    for size in (1, args.pool):
        db_url, name = fresh_pg(url)
        try:
            results[size] = anyio.run(run, db_url, size, args.rounds)
        finally:
            drop_pg(url, name)
        s = results[size]
        label = "one thread (pool_size = 1, baseline)" if size == 1 else f"pool_size = {size}"
        rows.append(
            [label, f"{statistics.median(s) * 1000:.0f}", f"{pct(s, 0.99):.0f}", str(len(s))]
        )
    base, pool = results[1], results[args.pool]
    rows.append(
        [
            "ratio pool / one thread",
            f"{statistics.median(pool) / statistics.median(base):.2f}",
            f"{pct(pool, 0.99) / pct(base, 0.99):.2f}",
            "",
        ]
    )
    table(
        f"{USERS} users' dry-run strikes at once, record work per strike (PostgreSQL)",
        ["record calls on", "p50 ms", "p99 ms", "strikes"],
        rows,
    )


if __name__ == "__main__":
    main()
