"""Degrading gracefully: 10 scouts in a row with one platform server that hangs at start
and one whose calls hang, against the healthy platforms alone in the same run.

Targets: every call's wall time <= 1.2 x call_timeout_s, and the median <= 1.2 x the
healthy platforms' latency once the breaker is open (the bad platforms then answer at
once instead of costing a timeout each)."""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from fastmcp import Client

from bench.common import PLATFORMS, gateway_transport, table, timed
from gwanjong_gateway.config.file import render
from gwanjong_sandbox.control import start_sandbox

CALL_TIMEOUT_S = 5.0
START_TIMEOUT_S = 60.0  # generous: a healthy server may start slowly on a loaded machine
CALLS = 10
TOPIC = {"topic": "rust async"}


async def scout_s(
    gw: Client[Any], platforms: list[str] | None = None
) -> tuple[float, dict[str, str]]:
    args: dict[str, Any] = dict(TOPIC)
    if platforms:
        args["platforms"] = platforms
    start = timed()
    result = await gw.call_tool("scout", args)
    data = result.structured_content or {}
    return timed() - start, data.get("errors", {})


def short(error: str) -> str:
    """What a bad platform answered, in a word or two."""
    for needle, word in (
        ("is down", "down (fast)"),
        ("still starting", "starting"),
        ("did not answer", "timeout"),
        ("no answer within", "timeout"),
    ):
        if needle in error:
            return word
    return error[:30] or "ok"


async def until_up(gw: Client[Any], names: list[str]) -> None:
    status: dict[str, Any] = {}
    with anyio.move_on_after(180):
        for name in names:  # platforms start on first use: `check` is that use
            await gw.call_tool("setup", {"action": "check", "platform": name})
        while True:
            status = (await gw.call_tool("status", {})).structured_content or {}
            if all(status["platforms"][n]["health"] == "up" for n in names):
                return
            await anyio.sleep(0.2)
    raise SystemExit(f"platform servers did not come up: {status.get('platforms')}")


async def main() -> None:
    with start_sandbox() as sandbox, tempfile.TemporaryDirectory(prefix="gwanjong-bench-") as tmp:
        served = [p for p in PLATFORMS if p in sandbox.health()["servable"]]
        hanging, healthy = served[-1], served[:-1]
        tables: dict[str, dict[str, Any]] = {
            name: {"env": sandbox.env(name), "min_interval_s": 0} for name in served
        }
        # The hanging platform's server waits for its API far longer than the gateway
        # waits for the server: to the gateway, the server hangs on every call.
        tables[hanging]["env"] = {
            **tables[hanging]["env"],
            f"{hanging.upper()}_TIMEOUT_S": "300",
        }
        tables["stuck"] = {"command": [sys.executable, "-c", "import time; time.sleep(3600)"]}
        gateway = {
            "writes": "dry-run",
            "state_dir": Path(tmp) / "state",
            "call_timeout_s": CALL_TIMEOUT_S,
            "start_timeout_s": START_TIMEOUT_S,
        }
        config = Path(tmp) / "gateway.toml"
        config.write_text(render(gateway, tables), encoding="utf-8")

        async with Client(gateway_transport(config), timeout=300) as gw:
            await until_up(gw, served)
            await scout_s(gw, healthy)  # warm: sessions open, caches filled
            baseline = statistics.median([(await scout_s(gw, healthy))[0] for _ in range(CALLS)])

            sandbox.fault(hanging, kind="hang", seconds=120, count=10_000)
            rows: list[list[str]] = []
            walls: list[float] = []
            for i in range(CALLS):
                wall, errors = await scout_s(gw)
                walls.append(wall)
                rows.append(
                    [
                        str(i + 1),
                        f"{wall * 1000:.0f}",
                        short(errors.get(hanging, "")),
                        short(errors.get("stuck", "")),
                    ]
                )
            sandbox.clear_faults()

    table(
        f"scout x {CALLS}: '{hanging}' hangs on calls, 'stuck' hangs at start "
        f"(call_timeout_s = {CALL_TIMEOUT_S:g}, start_timeout_s = {START_TIMEOUT_S:g})",
        ["call", "wall ms", hanging, "stuck"],
        rows,
    )
    worst, median = max(walls), statistics.median(walls)
    table(
        "summary",
        ["figure", "value", "compared with", "ratio", "target"],
        [
            [
                "slowest call",
                f"{worst * 1000:.0f} ms",
                f"call_timeout_s {CALL_TIMEOUT_S * 1000:.0f} ms",
                f"{worst / CALL_TIMEOUT_S:.2f}",
                "<= 1.2",
            ],
            [
                "median call",
                f"{median * 1000:.0f} ms",
                f"healthy platforms alone {baseline * 1000:.0f} ms ({', '.join(healthy)})",
                f"{median / baseline:.2f}",
                "<= 1.2",
            ],
        ],
    )


if __name__ == "__main__":
    anyio.run(main)
