"""Gateway hop: the same platform tool called through the gateway (exposed as
devto__capabilities) and directly on the platform server, both over stdio, same run."""

from __future__ import annotations

import anyio
from fastmcp import Client

from bench.common import (
    gateway_transport,
    median_ms,
    sandbox_and_config,
    server_transport,
    table,
    timed,
)

N = 300


async def measure(client: Client, tool: str) -> list[float]:  # type: ignore[type-arg]
    for _ in range(20):
        await client.call_tool(tool, {})
    samples = []
    for _ in range(N):
        start = timed()
        await client.call_tool(tool, {})
        samples.append(timed() - start)
    return samples


async def main() -> None:
    rows = []
    with sandbox_and_config() as (_sandbox, config, envs):
        for mode in ("legacy", "auto"):
            async with Client(
                server_transport("devto", envs["devto"]), mode=mode, timeout=120
            ) as direct:
                d = median_ms(await measure(direct, "capabilities"))
            async with Client(gateway_transport(config), mode=mode, timeout=120) as gw:
                await gw.call_tool("status", {})
                with anyio.fail_after(60):  # exposed tools are listed at once; wait for devto
                    while True:
                        status = (await gw.call_tool("status", {})).structured_content or {}
                        if status["platforms"]["devto"]["health"] == "up":
                            break
                        await anyio.sleep(0.2)
                g = median_ms(await measure(gw, "devto__capabilities"))
            rows.append([mode, f"{d:.2f}", f"{g:.2f}", f"{g - d:.2f}", f"{g / d:.2f}x"])
    table(
        f"Median latency of one tool call over stdio ({N} calls each)",
        ["protocol era", "direct ms", "via gateway ms", "overhead ms", "ratio"],
        rows,
    )
    print("\ntarget: overhead <= 5 ms median")


if __name__ == "__main__":
    anyio.run(main)
