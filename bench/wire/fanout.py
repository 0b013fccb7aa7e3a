"""Fan-out: scout across every platform with latency L injected on each platform request
in the sandbox. Concurrent fan-out keeps wall time near L plus a fixed processing cost
(measured at L = 0); a sequential loop would take (requests x L)."""

from __future__ import annotations

from typing import Any

import anyio
from fastmcp import Client

from bench.common import gateway_transport, sandbox_and_config, table, timed

LATENCIES_MS = (0, 400, 1000)


async def scout_ms(gw: Client[Any], platforms: list[str] | None = None) -> float:
    start = timed()
    args: dict[str, Any] = {"topic": "rust async"}
    if platforms:
        args["platforms"] = platforms
    await gw.call_tool("scout", args)
    return (timed() - start) * 1000


async def main() -> None:
    rows: list[list[str]] = []
    with sandbox_and_config() as (sandbox, config, envs):
        emulators = sandbox.health()["platforms"]
        async with Client(gateway_transport(config), timeout=120) as gw:
            await scout_ms(gw)  # servers started, sessions open, trend lists cached
            for latency in LATENCIES_MS:
                sandbox.clear_faults()
                for name in emulators:
                    if latency:
                        sandbox.fault(name, kind="latency", ms=latency)
                singles = {
                    name: min([await scout_ms(gw, [name]) for _ in range(2)]) for name in envs
                }
                before = sandbox.requests()
                walls = [await scout_ms(gw) for _ in range(3)]
                after = sandbox.requests()
                wall = sorted(walls)[1]
                requests = sum(after.values()) - sum(before.values())
                ratio = f"{wall / latency:.2f}" if latency else "-"
                slowest = max(singles.values())
                rows.append(
                    [
                        str(latency),
                        f"{wall:.0f}",
                        ratio,
                        f"{slowest:.0f}",
                        f"{wall / slowest:.2f}",
                        str(requests // 3),
                    ]
                )
            sandbox.clear_faults()
    table(
        f"scout across {len(envs)} platforms (median of 3), latency L on every platform request",
        ["L ms", "wall ms", "wall / L", "slowest platform alone ms", "wall / slowest", "requests"],
        rows,
    )
    print(
        "\ntarget: wall / L <= 1.3. At L = 0 the wall time is the fixed cost of the gateway, the servers and "
        "ranking on this 2-core machine; sequential requests would take requests x L."
    )


if __name__ == "__main__":
    anyio.run(main)
