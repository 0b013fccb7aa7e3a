"""Fan-out: scout across every platform with latency L injected per platform request in
the sandbox. Concurrent fan-out keeps wall time near L; a sequential loop would take
(platforms x requests) x L."""

from __future__ import annotations

import anyio
from fastmcp import Client

from bench.common import gateway_transport, sandbox_and_config, table, timed

LATENCY_MS = 400


async def main() -> None:
    with sandbox_and_config() as (sandbox, config, envs):
        async with Client(gateway_transport(config), timeout=120) as gw:
            await gw.call_tool("scout", {"topic": "warm up"})  # servers started, sessions open
            rows = []
            for name in envs:
                sandbox.clear_faults()
                sandbox.fault(name, kind="latency", ms=LATENCY_MS)
                if name == "twitter":
                    sandbox.fault("twikit", kind="latency", ms=LATENCY_MS)
                start = timed()
                await gw.call_tool("scout", {"topic": "rust async", "platforms": [name]})
                rows.append(
                    [
                        name,
                        f"{(timed() - start) * 1000:.0f}",
                        f"{(timed() - start) * 1000 / LATENCY_MS:.2f}",
                    ]
                )
            sandbox.clear_faults()
            before = sandbox.requests()
            for name in sandbox.health()["platforms"]:
                sandbox.fault(name, kind="latency", ms=LATENCY_MS)
            start = timed()
            result = await gw.call_tool("scout", {"topic": "rust async"})
            wall = (timed() - start) * 1000
            counts = {
                k: v - before.get(k, 0)
                for k, v in sandbox.requests().items()
                if v - before.get(k, 0)
            }
            sandbox.clear_faults()
    slowest = max(float(r[1]) for r in rows)
    rows.append([f"all {len(envs)} at once", f"{wall:.0f}", f"{wall / LATENCY_MS:.2f}"])
    table(
        f"scout with L = {LATENCY_MS} ms per platform request",
        ["platforms", "wall ms", "wall / L"],
        rows,
    )
    requests = sum(counts.values())
    print(
        f"\nHTTP requests in the 4-platform scout: {requests} ({counts}); sequentially they would take ~{requests * LATENCY_MS} ms"
    )
    print(
        f"wall / L = {wall / LATENCY_MS:.2f} (target <= 1.3); wall / slowest single platform = {wall / slowest:.2f}"
    )
    errors = (result.structured_content or {}).get("errors")
    if errors:
        print(f"errors: {errors}")


if __name__ == "__main__":
    anyio.run(main)
