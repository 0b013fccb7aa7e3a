"""Cold start: time from spawning until tools/list answers, the gateway (with its four
backends starting behind it) vs one bare FastMCP server, same run, median of 5. Also: how
long until every backend is up. The machine is let settle between runs, so one run's
background work (backends still importing) does not slow the next."""

from __future__ import annotations

import statistics
import sys

import anyio
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from bench.common import QUIET, gateway_transport, sandbox_and_config, table, timed

RUNS = 5
BARE = "from fastmcp import FastMCP\nm = FastMCP('bare')\n@m.tool\ndef ping() -> str:\n    'Ping.'\n    return 'pong'\nm.run(show_banner=False)\n"


async def first_answer(
    transport: StdioTransport, wait_for_backends: bool = False
) -> tuple[float, float]:
    start = timed()
    async with Client(transport, timeout=120) as client:
        await client.list_tools()
        answered = timed() - start
        ready = answered
        if wait_for_backends:
            while True:
                status = (await client.call_tool("status", {})).structured_content or {}
                if all(p["health"] == "up" for p in status.get("platforms", {}).values()):
                    break
                await anyio.sleep(0.05)
            ready = timed() - start
    await anyio.sleep(3)  # let the processes finish exiting before the next measurement
    return answered, ready


async def main() -> None:
    bare: list[float] = []
    gateway: list[float] = []
    ready: list[float] = []
    with sandbox_and_config() as (_sandbox, config, envs):
        for _ in range(RUNS):
            bare.append(
                (
                    await first_answer(
                        StdioTransport(command=sys.executable, args=["-c", BARE], env=QUIET)
                    )
                )[0]
            )
            answered, up = await first_answer(gateway_transport(config), wait_for_backends=True)
            gateway.append(answered)
            ready.append(up)
    b, g, r = statistics.median(bare), statistics.median(gateway), statistics.median(ready)
    table(
        f"Time until tools/list answers (median of {RUNS})",
        ["server", "seconds", "ratio"],
        [
            ["bare FastMCP server, one tool", f"{b:.2f}", "1.00"],
            [
                f"gateway, {len(envs)} platform servers starting behind it",
                f"{g:.2f}",
                f"{g / b:.2f}",
            ],
            [f"gateway with all {len(envs)} platform servers up", f"{r:.2f}", f"{r / b:.2f}"],
        ],
    )
    print("\ntarget: first answer <= 1.3x (the backends start concurrently, behind it)")


if __name__ == "__main__":
    anyio.run(main)
