"""Calls per workflow and what the model receives per call: scout -> draft -> strike
through the gateway vs the minimal sequence with the raw platform tools."""

from __future__ import annotations

from typing import Any

import anyio
from fastmcp import Client

from bench.common import dumps, gateway_transport, sandbox_and_config, server_transport, table
from gwanjong_gateway.usage.token_count import count_tokens

TOPIC = "rust async cancellation"
REPLY = "Wrapping each await in a guard made our handlers cancellation-safe."


def size(result: Any) -> tuple[int, int]:
    text = (
        dumps(result.structured_content)
        if result.structured_content is not None
        else " ".join(getattr(c, "text", "") for c in result.content)
    )
    return len(text.encode()), count_tokens(text)


async def main() -> None:
    rows: list[list[Any]] = []
    with sandbox_and_config(writes="dry-run") as (sandbox, config, envs):
        async with Client(gateway_transport(config), timeout=120) as gw:
            scouted = await gw.call_tool("scout", {"topic": TOPIC, "limit": 5})
            best = scouted.structured_content["opportunities"][0]  # type: ignore[index]
            drafted = await gw.call_tool("draft", {"opportunity_id": best["id"]})
            struck = await gw.call_tool(
                "strike", {"opportunity_id": best["id"], "action": "comment", "content": REPLY}
            )
            gateway_calls = [("scout", scouted), ("draft", drafted), ("strike", struck)]
            # A big thread: draft stays bounded (top 5 comments), raw comments grow with it.
            big = await gw.call_tool(
                "scout",
                {"topic": "postgres connection pooling", "platforms": ["devto"], "limit": 1},
            )
            big_id = big.structured_content["opportunities"][0]["id"]  # type: ignore[index]
            big_draft = await gw.call_tool("draft", {"opportunity_id": big_id})
        raw_calls: list[tuple[str, Any]] = []
        platform = best["platform"]
        for name, env in envs.items():
            async with Client(server_transport(name, env), timeout=120) as client:
                raw_calls.append(
                    (
                        f"{name}__search",
                        await client.call_tool("search", {"query": TOPIC, "limit": 20}),
                    )
                )
                if name == platform:
                    post_id = sandbox.ids(name)["rust-async"]
                    raw_calls.append(
                        (
                            f"{name}__get_post",
                            await client.call_tool("get_post", {"post_id": post_id}),
                        )
                    )
                    raw_calls.append(
                        (
                            f"{name}__get_comments",
                            await client.call_tool("get_comments", {"post_id": post_id}),
                        )
                    )
                    raw_calls.append(
                        (f"{name}__capabilities", await client.call_tool("capabilities", {}))
                    )
                    raw_calls.append(
                        (
                            f"{name}__validate",
                            await client.call_tool(
                                "validate",
                                {"action": "write_comment", "body": REPLY, "post_id": post_id},
                                raise_on_error=False,
                            ),
                        )
                    )
                    raw_calls.append(
                        (
                            f"{name}__write_comment",
                            await client.call_tool(
                                "write_comment",
                                {"post_id": post_id, "body": REPLY},
                                raise_on_error=False,
                            ),
                        )
                    )
        async with Client(server_transport("devto", envs["devto"]), timeout=120) as client:
            huge = sandbox.ids("devto")["huge"]
            big_raw = await client.call_tool("get_comments", {"post_id": huge, "limit": 500})
    for label, calls in (("gateway", gateway_calls), ("raw tools", raw_calls)):
        for name, result in calls:
            b, t = size(result)
            rows.append([label, name, b, t])
    g_tokens = sum(r[3] for r in rows if r[0] == "gateway")
    r_tokens = sum(r[3] for r in rows if r[0] == "raw tools")
    table(
        f"One workflow on {platform} (topic {TOPIC!r}), what the model receives per call",
        ["path", "call", "bytes", "tokens"],
        rows,
    )
    scout_t = size(gateway_calls[0][1])[1]
    search_t = sum(size(r)[1] for n, r in raw_calls if n.endswith("__search"))
    table(
        "Summary",
        ["measure", "gateway", "raw tools", "ratio"],
        [
            [
                "calls per workflow",
                len(gateway_calls),
                len(raw_calls),
                f"{len(raw_calls) / len(gateway_calls):.1f}x fewer",
            ],
            ["tokens received, whole workflow", g_tokens, r_tokens, f"{g_tokens / r_tokens:.0%}"],
            [
                "tokens: scout vs every platform's search",
                scout_t,
                search_t,
                f"{scout_t / search_t:.0%}",
            ],
            [
                "tokens: draft vs get_comments, 500-comment thread",
                size(big_draft)[1],
                size(big_raw)[1],
                f"{size(big_draft)[1] / size(big_raw)[1]:.1%}",
            ],
        ],
    )


if __name__ == "__main__":
    anyio.run(main)
