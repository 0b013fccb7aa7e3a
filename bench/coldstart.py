"""Cold start: time from spawning until tools/list answers, the gateway (with its four
backends starting behind it) vs one bare FastMCP server, same run, median of 5."""

from __future__ import annotations

import statistics
import sys

import anyio
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from bench.common import QUIET, gateway_transport, sandbox_and_config, table, timed

RUNS = 5
BARE = "from fastmcp import FastMCP\nm = FastMCP('bare')\n@m.tool\ndef ping() -> str:\n    'Ping.'\n    return 'pong'\nm.run(show_banner=False)\n"


async def first_answer(transport: StdioTransport) -> float:
    start = timed()
    async with Client(transport, timeout=120) as client:
        await client.list_tools()
        return timed() - start


async def main() -> None:
    bare: list[float] = []
    gateway: list[float] = []
    with sandbox_and_config() as (_sandbox, config, envs):
        for _ in range(RUNS):
            bare.append(
                await first_answer(
                    StdioTransport(command=sys.executable, args=["-c", BARE], env=QUIET)
                )
            )
            gateway.append(await first_answer(gateway_transport(config)))
    b, g = statistics.median(bare), statistics.median(gateway)
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
        ],
    )
    print("\ntarget: <= 1.3x")


if __name__ == "__main__":
    anyio.run(main)
