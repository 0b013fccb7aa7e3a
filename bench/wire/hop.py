"""Gateway hop: the same platform tool called directly on the platform server, through
FastMCP's proxy of it (`create_proxy`, what a user would build instead), and through the
gateway (exposed as devto__capabilities), all over stdio, same run. The three are held open
together and called in turn (rotated), so load from elsewhere on the machine falls on all
three alike."""

from __future__ import annotations

import json
import sys

import anyio
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from bench.common import (
    QUIET,
    gateway_transport,
    median_ms,
    sandbox_and_config,
    server_transport,
    table,
    timed,
)

N = 300


async def interleaved(calls: list[tuple[Client, str]]) -> list[list[float]]:  # type: ignore[type-arg]
    for client, tool in calls:
        for _ in range(20):
            await client.call_tool(tool, {})
    samples: list[list[float]] = [[] for _ in calls]
    for i in range(N):
        for k in range(len(calls)):
            j = (i + k) % len(calls)
            client, tool = calls[j]
            start = timed()
            await client.call_tool(tool, {})
            samples[j].append(timed() - start)
    return samples


async def main() -> None:
    rows = []
    with sandbox_and_config() as (_sandbox, config, envs):
        envs_file = config.parent / "envs.json"
        envs_file.write_text(json.dumps(envs))
        for mode in ("legacy", "auto"):
            proxy = StdioTransport(
                command=sys.executable,
                args=["-m", "bench.baselines", "proxy", "devto", str(envs_file)],
                env=QUIET,
            )
            async with (
                Client(server_transport("devto", envs["devto"]), mode=mode, timeout=120) as direct,
                Client(proxy, mode=mode, timeout=120) as proxied,
                Client(gateway_transport(config), mode=mode, timeout=120) as gw,
            ):
                with anyio.fail_after(60):
                    # exposed tools are listed at once; wait until devto itself is up
                    while True:
                        status = (await gw.call_tool("status", {})).structured_content or {}
                        if status["platforms"]["devto"]["health"] == "up":
                            break
                        await anyio.sleep(0.2)
                sd, sp, sg = await interleaved(
                    [
                        (direct, "capabilities"),
                        (proxied, "capabilities"),
                        (gw, "devto__capabilities"),
                    ]
                )
            d, p, g = median_ms(sd), median_ms(sp), median_ms(sg)
            hop, proxy_hop = g - d, p - d
            rows.append(
                [
                    mode,
                    f"{d:.2f}",
                    f"{p:.2f}",
                    f"{proxy_hop:.2f}",
                    f"{g:.2f}",
                    f"{hop:.2f}",
                    f"{hop / proxy_hop:.2f}" if proxy_hop > 0 else "-",
                ]
            )
    table(
        f"Median latency of one tool call over stdio ({N} calls each)",
        [
            "protocol era",
            "direct ms",
            "via FastMCP proxy ms",
            "proxy hop ms",
            "via gateway ms",
            "gateway hop ms",
            "hop ratio",
        ],
        rows,
    )
    print("\ntarget: gateway hop <= 0.8x the FastMCP proxy's hop, same run")


if __name__ == "__main__":
    anyio.run(main)
