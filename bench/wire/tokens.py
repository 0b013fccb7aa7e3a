"""Tool-definition tokens: the gateway's tools/list vs all six platform servers' tools
under namespaced names, as a user connecting them directly would see them (o200k). Counted
two ways: the whole tools/list JSON, and what a host sends the model (name, description and
inputSchema of each tool; hosts generally leave outputSchema, annotations and _meta out)."""

from __future__ import annotations

from typing import Any

import anyio
from fastmcp import Client

from bench.common import dumps, gateway_transport, sandbox_and_config, server_transport, table
from gwanjong_gateway.usage.token_count import count_tokens, tool_list_tokens

BASELINE_MODEL_VIEW = 960  # the gateway's five tools as the model saw them when issue 24 was filed
#: the whole tools/list JSON once the five tools declare typed output schemas (issue 24)
WHOLE_JSON_BUDGET = 1950


def model_view_tokens(tools: list[Any]) -> int:
    """name + description + inputSchema per tool, as hosts put tools into the context."""
    view = [
        {"name": t.name, "description": t.description or "", "input_schema": t.input_schema}
        for t in tools
    ]
    return count_tokens(dumps(view))


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
    gm, rm = model_view_tokens(gateway_tools), model_view_tokens(raw)
    table(
        "Tool-definition tokens (o200k_base)",
        ["tool list", "tools", "whole JSON", "share", "as the model sees it", "share"],
        [
            [
                "gateway (scout, draft, strike, status, setup)",
                len(gateway_tools),
                g,
                f"{g / r:.1%}",
                gm,
                f"{gm / rm:.1%}",
            ],
            [
                f"raw union of {len(envs)} platform servers (namespaced)",
                len(raw),
                r,
                "100%",
                rm,
                "100%",
            ],
        ],
    )
    rows = [
        [t.name, count_tokens(dumps(t.model_dump(mode="json", by_alias=True, exclude_none=True)))]
        for t in gateway_tools
    ]
    table("Gateway tools", ["tool", "tokens"], rows)
    print(
        f"\ntarget: gateway <= {WHOLE_JSON_BUDGET} tokens (output schemas included) and <= 15% "
        f"of raw -> {'met' if g <= WHOLE_JSON_BUDGET and g <= 0.15 * r else 'NOT met'}"
    )
    print(
        f"target: as the model sees it, no growth over {BASELINE_MODEL_VIEW} -> {gm} "
        f"{'met' if gm <= BASELINE_MODEL_VIEW else 'NOT met'} (stretch: 526)"
    )


if __name__ == "__main__":
    anyio.run(main)
