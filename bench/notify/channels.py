"""Strikes and scouts while a notification channel misbehaves, same run: p50 and p95 of
scout and strike (dry-run, through the whole chain and the SQLite record) over ROUNDS
calls, on a gateway with pending approvals to tell and `[notify] urls` set to: nothing
(the baseline), a channel that refuses (HTTP 500, so Apprise fails and retries), and one
that hangs (accepts the connection, never answers). Delivery runs beside the calls, so
each row should match the baseline within noise.

    uv run python -m bench.notify.channels [--rounds 40]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from contextlib import ExitStack, closing
from pathlib import Path
from typing import Any

import anyio
from fastmcp import Client

from bench.common import table, timed
from gwanjong_gateway.config import parse
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.server import build_gateway
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import FORUM
from tests.gateway.helpers import config_text
from tests.gateway.notify.channels import hanging_port, http_receiver
from tests.gateway.notify.records import open_approval


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, -(-len(ordered) * 95 // 100) - 1)]


async def one_case(urls: list[str], rounds: int) -> tuple[list[float], list[float], str]:
    with tempfile.TemporaryDirectory(prefix="gwanjong-bench-notify-") as tmp:
        state = Path(tmp) / "state"
        state.mkdir(parents=True)
        tables: dict[str, Any] = {"safety": {"author_cooldown_days": 0}}
        if urls:
            tables["notify"] = {"urls": urls, "every_s": 10}
        config = parse(config_text(state, ["devto"], "dry-run", tables=tables))
        with closing(StrikeStore(state / "gwanjong.db")) as store:
            for n in range(5):
                open_approval(store, f"waiting-{n}", time.time() - 60)
        forum = FakePlatform(FORUM)
        gw = Gateway(config, environ={}, transports={"devto": forum.server()})
        scouts: list[float] = []
        strikes: list[float] = []
        first = ""  # a handle to strike again once scout has none left (dry-run)
        async with Client(build_gateway(config, gateway=gw)) as client:
            await anyio.sleep(0.5)  # the notifier's first message is on its way
            for n in range(rounds):
                start = timed()
                scouted = (
                    await client.call_tool("scout", {"topic": "rust async cancellation"})
                ).structured_content
                scouts.append((timed() - start) * 1000)
                assert scouted is not None
                found = [o["id"] for o in scouted["opportunities"]]
                oid = found[0] if found else first
                first = first or oid
                await client.call_tool("draft", {"opportunity_id": oid})
                start = timed()
                await client.call_tool(
                    "strike",
                    {"opportunity_id": oid, "action": "comment", "content": f"Guards, {n}."},
                )
                strikes.append((timed() - start) * 1000)
        with closing(StrikeStore(state / "gwanjong.db")) as store:
            told = store.last_notice()
        return scouts, strikes, told.summary if told else "-"


async def run(rounds: int) -> list[list[Any]]:
    rows: list[list[Any]] = []
    with ExitStack() as stack:
        bad, _ = stack.enter_context(http_receiver(500))
        hang = stack.enter_context(hanging_port())
        cases = {
            "no channel (baseline)": [],
            "a channel that refuses (HTTP 500)": [f"json://127.0.0.1:{bad}/hook"],
            "a channel that hangs": [f"json://127.0.0.1:{hang}/hook"],
        }
        for name, urls in cases.items():
            scouts, strikes, told = await one_case(urls, rounds)
            rows.append(
                [
                    name,
                    f"{statistics.median(scouts):.1f}",
                    f"{p95(scouts):.1f}",
                    f"{statistics.median(strikes):.1f}",
                    f"{p95(strikes):.1f}",
                    told,
                ]
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    rows = anyio.run(run, args.rounds)
    table(
        f"scout and strike (ms) while a notification channel fails, {args.rounds} rounds",
        ["[notify] urls", "scout p50", "scout p95", "strike p50", "strike p95", "claimed"],
        rows,
    )


if __name__ == "__main__":
    main()
