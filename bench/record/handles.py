"""What handles add to draft: finding the scouted opportunity by its handle in the record,
and keeping draft's context on it, vs a state in the process's memory, in the same run.

Each round scouts one opportunity (scout's own keeping of its handles is timed apart),
then times what the pipeline does around draft's body: `HandleStates.hold` for the
handle (the record call on its worker thread, the lookup by the handle's hash and
principal, decoding the opportunity), and on the way out encoding draft's context and
the update that keeps it. The baseline is the same work on a plain dict in memory (what
draft did before handles: a state keyed by session). --others live handles of other
users are in the table first (bulk SQL), so the lookup is not on an empty table.
Target: the handle work adds <= 1 ms to draft at p50.

PostgreSQL comes from `GWANJONG_BENCH_PG_URL` or `GWANJONG_TEST_PG_URL` (a fresh database
is created and dropped); without one its rows are skipped with the reason."""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio

from bench.common import table
from bench.record.store import drop_pg, fresh_pg
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.scout.handles import Caller, HandleStates, mint
from gwanjong_gateway.scout.scout_results import RuleView
from gwanjong_gateway.scout.state import DraftContext, Opportunity, Workflow
from gwanjong_shared.contract.models import Post
from gwanjong_shared.pipeline import ToolSpec

SCOUT = ToolSpec("scout", stores=("opportunities",))
DRAFT = ToolSpec("draft", stores=("contexts",), requires=("opportunities",))
TTL_S = 86400.0
BODY = "Cancellation in async Rust: what happens between two awaits. " * 20  # ~1.2 kB


def opportunity(n: int) -> Opportunity:
    post = Post(
        id=f"t3_bench{n}",
        platform="reddit",
        title=f"Rust async cancellation, part {n}",
        url=f"https://reddit.com/r/rust/comments/bench{n}",
        body=BODY,
        author=f"author{n}",
        tags=["rust", "async"],
        likes=42,
        comments_count=7,
    )
    return Opportunity(id=f"reddit-{post.id}", post=post, score=3.5, reason="bm25 3.5")


def context(o: Opportunity) -> DraftContext:
    auto = RuleView(allowed="auto", reason="")
    rules = {"comment": auto, "upvote": auto}
    shown = {"thread": [{"author": f"c{i}", "body": BODY[:200]} for i in range(10)]}
    return DraftContext(opportunity=o, capabilities=None, validation=rules, shown=shown)


def fill(store: StrikeStore, others: int, now: float) -> None:
    """``others`` live handles of other principals, by bulk SQL (one statement)."""
    pg = type(store).__name__ == "PostgresStrikeStore"
    text = "::text" if pg else ""
    mod = "%%" if pg else "%"  # psycopg reads a lone % as a placeholder
    series = (
        f"generate_series(1, {others}) AS n"
        if pg
        else f"(WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < {others}) SELECT n FROM s)"
    )
    with store._transaction(immediate=True):  # a benchmark's bulk fill
        store.engine.x(
            "INSERT INTO handles (handle_hash, principal, client, platform, opportunity, scouted,"
            f" drafted, created_at, expires_at) SELECT 'h' || n{text}, 'user' || (n {mod} 50){text}, '',"
            f" 'reddit', 'reddit-t3_' || n{text}, '{{}}', NULL, {now}, {now + TTL_S} FROM {series}"
        )


def analyze(store: StrikeStore) -> None:
    """Fresh planner statistics and a vacuumed table after the bulk fill, as autovacuum
    leaves a live table (and so that autovacuum does not start on it mid-measurement)."""
    pg = type(store).__name__ == "PostgresStrikeStore"
    store.engine.x("VACUUM ANALYZE handles" if pg else "ANALYZE handles")


async def rounds(records: Records, count: int, others: int) -> dict[str, list[float]]:
    now = time.time()
    states = HandleStates(records, ttl_s=TTL_S, wall=time.time, who=lambda: "alice")
    if others:
        await records.run(fill, others, now)
        await records.run(analyze)
    caller = Caller("alice")
    memory: dict[str, Workflow] = {}
    out: dict[str, list[float]] = {"scout": [], "draft": [], "memory": []}
    for n in range(-5, count):  # five to warm up
        found = opportunity(n)
        start = time.perf_counter()
        async with states.hold(caller, SCOUT, {}) as state:
            handle = mint("reddit")
            state.opportunities[handle] = replace(found, handle=handle)
        scouted = time.perf_counter() - start
        start = time.perf_counter()
        async with states.hold(caller, DRAFT, {"opportunity_id": handle}) as state:
            state.contexts[handle] = context(state.opportunities[handle])
        drafted = time.perf_counter() - start
        # The baseline: the same state, kept in this process's memory by a session key.
        memory["session"] = Workflow(opportunities={handle: found})
        start = time.perf_counter()
        state = memory["session"]
        state.contexts[handle] = context(state.opportunities[handle])
        kept = time.perf_counter() - start
        if n >= 0:
            out["scout"].append(scouted)
            out["draft"].append(drafted)
            out["memory"].append(kept)
    return out


def p(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[int(q * (len(ordered) - 1))] * 1000


def rows_for(engine: str, found: dict[str, list[float]], others: int) -> list[list[Any]]:
    draft50 = statistics.median(found["draft"]) * 1000
    memory50 = statistics.median(found["memory"]) * 1000
    added = draft50 - memory50
    return [
        [
            f"{engine}, {others:,} other handles",
            f"{draft50:.2f} ({p(found['draft'], 0.95):.2f})",
            f"{memory50:.3f}",
            f"{added:.2f} {'✔' if added <= 1 else '✘'}",
            f"{statistics.median(found['scout']) * 1000:.2f}",
        ]
    ]


async def measure(path: Path, url: str, count: int, others: int) -> dict[str, list[float]]:
    records = Records(path, url=url)
    try:
        return await rounds(records, count, others)
    finally:
        records.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=300, help="drafts measured per record")
    parser.add_argument("--others", type=int, default=100_000, help="other users' live handles")
    args = parser.parse_args()
    out: list[list[Any]] = []
    with tempfile.TemporaryDirectory(prefix="gwanjong-bench-") as tmp:
        for others in (0, args.others):
            db = Path(tmp) / f"h{others}.db"
            found = anyio.run(measure, db, "", args.rounds, others)
            out += rows_for("SQLite", found, others)
    url = os.environ.get("GWANJONG_BENCH_PG_URL") or os.environ.get("GWANJONG_TEST_PG_URL")
    if not url:
        print(
            "PostgreSQL skipped: set GWANJONG_BENCH_PG_URL (or run "
            'eval "$(bash scripts/pg start)") to compare it'
        )
    else:
        for others in (0, args.others):
            db_url, name = fresh_pg(url)
            try:
                found = anyio.run(measure, Path("unused.db"), db_url, args.rounds, others)
            finally:
                drop_pg(url, name)
            out += rows_for("PostgreSQL", found, others)
    table(
        f"handles' work around draft (find by handle + keep draft's context), ms, "
        f"median (p95) of {args.rounds}; baseline: the same state in memory",
        [
            "record",
            "draft's handle work",
            "in memory",
            "added at p50 (target <= 1)",
            "scout keeps 1",
        ],
        out,
    )


if __name__ == "__main__":
    main()
