"""Gateway hop: the same platform tool called directly on the platform server, through
FastMCP's proxy of it (`create_proxy`, what a user would build instead), and through the
gateway (exposed as devto__capabilities), all over stdio, same run."""

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
            envs_file = config.parent / "envs.json"
            envs_file.write_text(json.dumps(envs))
            proxy = StdioTransport(
                command=sys.executable,
                args=["-m", "bench.baselines", "proxy", "devto", str(envs_file)],
                env=QUIET,
            )
            async with Client(proxy, mode=mode, timeout=120) as proxied:
                p = median_ms(await measure(proxied, "capabilities"))
            async with Client(gateway_transport(config), mode=mode, timeout=120) as gw:
                await gw.call_tool("status", {})
                with anyio.fail_after(60):
                    while "devto__capabilities" not in {t.name for t in await gw.list_tools()}:
                        await anyio.sleep(0.2)
                g = median_ms(await measure(gw, "devto__capabilities"))
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
