"""Tool-definition tokens: the gateway's tools/list vs all four platform servers' tools
under namespaced names, as a user connecting them directly would see them (o200k)."""

from __future__ import annotations

import anyio
from fastmcp import Client

from bench.common import dumps, gateway_transport, sandbox_and_config, server_transport, table
from gwanjong_gateway.tokens import count_tokens, tool_list_tokens


async def main() -> None:
    with sandbox_and_config() as (_sandbox, config, envs):
        async with Client(gateway_transport(config), timeout=120) as gw:
            gateway_tools = [
                t for t in await gw.list_tools() if "__" not in t.name
            ]  # without expose
        raw = []
        for platform, env in envs.items():
            async with Client(server_transport(platform, env), timeout=120) as client:
                for tool in await client.list_tools():
                    raw.append(tool.model_copy(update={"name": f"{platform}__{tool.name}"}))
    g, r = tool_list_tokens(gateway_tools), tool_list_tokens(raw)
    table(
        "Tool-definition tokens (o200k_base)",
        ["tool list", "tools", "tokens", "share of raw"],
        [
            [
                "gateway (scout, draft, strike, status, setup)",
                len(gateway_tools),
                g,
                f"{g / r:.1%}",
            ],
            [f"raw union of {len(envs)} platform servers (namespaced)", len(raw), r, "100%"],
        ],
    )
    rows = [
        [t.name, count_tokens(dumps(t.model_dump(mode="json", by_alias=True, exclude_none=True)))]
        for t in gateway_tools
    ]
    table("Gateway tools", ["tool", "tokens"], rows)
    print(
        f"\ntarget: gateway <= 1500 tokens and <= 15% of raw -> {'met' if g <= 1500 and g <= 0.15 * r else 'NOT met'}"
    )


if __name__ == "__main__":
    anyio.run(main)
