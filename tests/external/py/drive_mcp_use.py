"""mcp-use (run by .tools/py/mcp-use/bin/python): `MCPClient.from_dict({"mcpServers": ...})`
and the LangChain tools its `MCPAgent` gives the model (`LangChainAdapter.create_tools`),
invoked with no model. The client holds one session per server (mcp 1.x: 2025-11-25).
A tool answers the result's text (the gateway's JSON) or, for an error, mcp-use's error dict.
Its anonymous telemetry is switched off: the tests run offline."""

# pyright: reportMissingImports=false
from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import flow

os.environ["MCP_USE_ANONYMIZED_TELEMETRY"] = "false"  # read when mcp_use is imported

from mcp.types import LATEST_PROTOCOL_VERSION
from mcp_use import MCPClient
from mcp_use.agents.adapters.langchain_adapter import LangChainAdapter


async def main() -> None:
    args = flow.arguments()
    if args.transport == "stdio":
        line = flow.command(args)
        server: dict[str, Any] = {"command": line[0], "args": line[1:]}
    else:
        server = {"url": args.url}
        if args.token:
            server["headers"] = flow.headers(args)
    client = MCPClient.from_dict({"mcpServers": {"gwanjong": server}})
    try:
        tools = {t.name: t for t in await LangChainAdapter().create_tools(client)}

        async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            answer = await tools[name].ainvoke(arguments)
            if isinstance(answer, dict):  # format_error's dict: error type and details
                return {"error": str(answer.get("details", answer))}
            try:
                parsed = json.loads(answer)
            except (TypeError, ValueError):
                return {"error": f"not JSON: {answer!r}"}
            return parsed if isinstance(parsed, dict) else {"error": f"not an object: {answer!r}"}

        report = await flow.run(call, args)
    finally:
        await client.close_all_sessions()
    report["tools"] = sorted(tools)
    report["offers"] = LATEST_PROTOCOL_VERSION
    flow.emit(report)


if __name__ == "__main__":
    asyncio.run(main())
