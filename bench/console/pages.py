"""The console's pages with a big record, same run: p50 and p95 of each page over ROUNDS
requests, with HISTORY strike rows (spread over 30 days, four statuses, two principals),
USAGE usage-log calls in the last 7 days, a pending approval and a hand-off made through
the real chain (a fake forum in-process, writes = confirm). Requests go through the
console's ASGI app in-process (no TCP: the page's own work); the baseline is the
stylesheet served by the same app (the floor any request pays), and each ratio is the
page's p95 over the baseline's. Target: every page under 200 ms at p95. The usage page
answers from the figures it read last and reads the usage log again in the background
once they are 10 s old (`USAGE_FRESH_S`); its "uncached" row empties that cache before
each request: the cost of the first look after the console starts.

Then start-up: a child Python builds the gateway and lists its tools, console off vs on
(ROUNDS_START rounds each, alternating), and says whether the console package was
imported at all (off: it must not be).

    uv run python -m bench.console.pages [--rows 10000] [--rounds 60]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
from fastmcp import Client

from bench.common import table, timed
from gwanjong_gateway.config import parse
from gwanjong_gateway.console.app import Console
from gwanjong_gateway.console.routes import build_app
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.server import build_gateway
from gwanjong_gateway.usage.log import open_usage
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import FORUM
from tests.gateway.helpers import config_text, opportunity_for

TARGET_MS = 200.0
STATUSES = ["posted", "refused", "dry_run", "declined"]


def fill(config_state: Path, rows: int, usage_rows: int, config: Any) -> None:
    store = StrikeStore(config_state / "gwanjong.db")
    now = time.time()
    for n in range(rows):
        text = f"reply {n}: guard each await, then test cancellation in CI."
        store.insert(
            intent_key=f"bench-{n}",
            platform="devto",
            target=f"post-{n}",
            target_url=f"https://dev.to/someone/post-{n}",
            author=f"author{n % 500}",
            opportunity=f"devto:post-{n}",
            action="comment",
            content_hash=f"h{n}",
            content=text,
            title="",
            mode="live",
            status=STATUSES[n % len(STATUSES)],
            reason="",
            approver="auto",
            result_id="",
            result_url=f"https://dev.to/comment/{n}" if n % 4 == 0 else "",
            context={"post": {"title": f"Post {n}", "body": "x" * 400}},
            policy=["mode=live", "validate: allowed=auto"],
            principal="alice" if n % 2 else "",
            now=now - 30 * 86400 * (rows - n) / rows,
        )
    store.close()
    usage = open_usage(config)
    for n in range(usage_rows):
        kind = "" if n % 17 else ("rate_limited" if n % 2 else "unavailable")
        usage.record_platform(
            "devto", ["search", "trending", "get_post"][n % 3], kind, 0.02 + (n % 50) / 1000
        )
    usage.close()


async def pages(rows: int, usage_rows: int, rounds: int) -> list[list[Any]]:
    with tempfile.TemporaryDirectory(prefix="gwanjong-bench-console-") as tmp:
        state = Path(tmp) / "state"
        config = parse(config_text(state, ["devto"], "confirm"))
        state.mkdir(parents=True, exist_ok=True)
        await anyio.to_thread.run_sync(fill, state, rows, usage_rows, config)
        forum = FakePlatform(FORUM)
        gw = Gateway(config, environ={}, transports={"devto": forum.server()})
        mcp = build_gateway(config, gateway=gw)
        console = Console(gw, port=8123)
        base = "http://127.0.0.1:8123"
        async with (
            Client(mcp) as client,
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=build_app(console)), base_url=base
            ) as http,
        ):
            scouted = (
                await client.call_tool("scout", {"topic": "rust async cancellation"})
            ).structured_content
            assert scouted is not None
            oid = opportunity_for(scouted, "devto", "Rust async")
            await client.call_tool("draft", {"opportunity_id": oid})
            wait = await client.call_tool(
                "strike",
                {"opportunity_id": oid, "action": "post", "content": "Guards.", "title": "T"},
            )
            approval = wait.structured_content["approval"]["id"]  # type: ignore[index]
            await client.call_tool(
                "strike", {"opportunity_id": oid, "action": "comment", "content": "By hand."}
            )
            assert (await http.get(console.signin_link().removeprefix(base))).status_code == 303
            paths = {
                "baseline: /static/console.css": "/static/console.css",
                "approvals": "/approvals",
                "one approval": f"/approvals/{approval}",
                "hand-offs": "/handoffs",
                "history, newest": "/history",
                "history, filtered": "/history?platform=devto&status=posted&by=alice",
                "history, page 100": f"/history?before={rows // 2}",
                "history, a date range": "/history?from=2000-01-01&to=2100-01-01&status=refused",
                "one record": f"/history/{rows // 3}",
                "inbox": "/inbox",
                "usage and health": "/usage",
                "usage and health, uncached": "/usage",
            }
            times: dict[str, list[float]] = {k: [] for k in paths}
            for _ in range(rounds):
                for name, path in paths.items():  # interleaved: drift hits every page alike
                    if name.endswith("uncached"):
                        console.usage_cache.clear()
                    start = timed()
                    answer = await http.get(path)
                    times[name].append((timed() - start) * 1000)
                    assert answer.status_code == 200, (path, answer.status_code)
        floor = p95(times["baseline: /static/console.css"])
        out: list[list[Any]] = []
        for name, ms in times.items():
            top = p95(ms)
            out.append(
                [
                    name,
                    f"{statistics.median(ms):.1f}",
                    f"{top:.1f}",
                    f"{top / floor:.1f}x",
                    "yes" if top < TARGET_MS else "NO",
                ]
            )
        return out


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, -(-len(ordered) * 95 // 100) - 1)]


CHILD = """
import sys, time
start = time.perf_counter()
import anyio
from fastmcp import Client
from gwanjong_gateway.config import parse
from gwanjong_gateway.server import build_gateway
config = parse(open(sys.argv[1], encoding="utf-8").read())
async def main():
    async with Client(build_gateway(config, environ={})) as client:
        await client.list_tools()
        listed = time.perf_counter() - start
    print(listed * 1000, "gwanjong_gateway.console" in sys.modules)
anyio.run(main)
"""


def start_up(rounds: int) -> list[list[Any]]:
    results: dict[bool, list[tuple[float, bool]]] = {False: [], True: []}
    with tempfile.TemporaryDirectory(prefix="gwanjong-bench-console-") as tmp:
        for n in range(rounds * 2):
            enabled = bool(n % 2)
            path = Path(tmp) / f"gateway-{enabled}.toml"
            path.write_text(
                config_text(
                    Path(tmp) / f"state-{n}",
                    [],
                    "dry-run",
                    tables={"console": {"enabled": enabled}},
                ),
                encoding="utf-8",
            )
            done = subprocess.run(
                [sys.executable, "-c", CHILD, str(path)],
                capture_output=True,
                text=True,
                timeout=120,
                check=True,
            )
            ms, imported = done.stdout.split()
            results[enabled].append((float(ms), imported == "True"))
    off = statistics.median(ms for ms, _ in results[False])
    rows = []
    for enabled in (False, True):
        ms = statistics.median(m for m, _ in results[enabled])
        imported = {i for _, i in results[enabled]}
        rows.append(
            [
                "console on" if enabled else "console off (baseline)",
                f"{ms:.0f}",
                f"{ms / off:.2f}x",
                "yes" if True in imported else "no",
            ]
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--usage-rows", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--start-rounds", type=int, default=5)
    args = parser.parse_args()
    measured = anyio.run(pages, args.rows, args.usage_rows, args.rounds)
    table(
        f"Console pages, {args.rows:,} strike rows and {args.usage_rows:,} usage calls, "
        f"{args.rounds} requests each (ms; ratio: p95 over the baseline's p95)",
        ["page", "p50 ms", "p95 ms", "ratio", f"p95 < {TARGET_MS:.0f} ms"],
        measured,
    )
    table(
        f"Gateway start-up to tools/list, child Python, median of {args.start_rounds} (ms)",
        ["gateway", "ms", "ratio", "console imported"],
        start_up(args.start_rounds),
    )


if __name__ == "__main__":
    main()
