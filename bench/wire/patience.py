"""Answers within a client's patience: every platform answering 4 s late (the sandbox's
`latency` fault), the wall time of `status`, a cold first scout and the next scout on the
same topic. google-adk and autogen give a tool call 5 s, agno 10 s.

Targets: status <= 1 s; the first scout <= answer_within_s + 1 s (what arrived, the rest
named as still coming); the next scout has every platform."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import anyio
from fastmcp import Client

from bench.common import PLATFORMS, gateway_transport, table, timed
from bench.wire.degrade import until_up
from gwanjong_gateway.config.file import render
from gwanjong_gateway.platforms.health import PROBE_TTL_S
from gwanjong_sandbox.control import start_sandbox

LATE_MS = 4000
ANSWER_WITHIN_S = 4.0
TOPIC = {"topic": "rust async", "limit": 25}


async def wall(gw: Client[Any], tool: str, args: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    start = timed()
    result = await gw.call_tool(tool, args)
    return timed() - start, result.structured_content or {}


async def main() -> None:
    with start_sandbox() as sandbox, tempfile.TemporaryDirectory(prefix="gwanjong-bench-") as tmp:
        served = [p for p in PLATFORMS if p in sandbox.health()["servable"]]
        tables: dict[str, dict[str, Any]] = {}
        for name in served:  # each server waits out a 4 s answer
            env = {**sandbox.env(name), f"{name.upper()}_TIMEOUT_S": "30"}
            tables[name] = {"env": env, "min_interval_s": 0}
        gateway = {
            "writes": "dry-run",
            "state_dir": Path(tmp) / "state",
            "call_timeout_s": 30,
            "answer_within_s": ANSWER_WITHIN_S,
        }
        config = Path(tmp) / "gateway.toml"
        config.write_text(render(gateway, tables), encoding="utf-8")
        async with Client(gateway_transport(config), timeout=300) as gw:
            await until_up(gw, served)
            for name in served:
                sandbox.fault(name, kind="latency", ms=LATE_MS)
            await anyio.sleep(PROBE_TTL_S + 1)  # every platform's health is stale again
            status_s, _ = await wall(gw, "status", {})
            first_s, first = await wall(gw, "scout", TOPIC)
            await anyio.sleep(LATE_MS / 1000 * 3)  # the reads still coming arrive
            second_s, second = await wall(gw, "scout", TOPIC)
            sandbox.clear_faults()

    def named(found: dict[str, Any]) -> str:
        coming = [p for p, e in found.get("errors", {}).items() if e.startswith("still coming")]
        got = sorted({o["platform"] for o in found.get("opportunities", [])})
        return f"has {', '.join(got) or 'none'}; still coming: {', '.join(coming) or 'none'}"

    table(
        f"every platform {LATE_MS} ms late (answer_within_s = {ANSWER_WITHIN_S:g})",
        ["call", "wall ms", "answer", "target"],
        [
            ["status", f"{status_s * 1000:.0f}", "what is known", "<= 1,000 ms"],
            ["first scout (cold)", f"{first_s * 1000:.0f}", named(first), "<= 5,000 ms"],
            ["next scout, same topic", f"{second_s * 1000:.0f}", named(second), "every platform"],
        ],
    )


if __name__ == "__main__":
    anyio.run(main)
