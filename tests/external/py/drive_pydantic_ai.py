"""pydantic-ai (run by .tools/py/pydantic-ai/bin/python). Since 2.x its MCP client is
`MCPToolset` (the older `MCPServerStdio` / `MCPServerStreamableHTTP` names only point
there), built on `fastmcp.Client`, whose default mode picks the 2026-07-28 era. The toolset is
not held open: each `direct_call_tool` connects on its own, as each agent run does, so every
call is a new connection (over stdio FastMCP keeps the one process alive between them)."""

# pyright: reportMissingImports=false
from __future__ import annotations

import asyncio
from typing import Any

import flow
from fastmcp.client.transports import StdioTransport
from pydantic_ai.exceptions import ModelRetry
from pydantic_ai.mcp import MCPToolset


async def main() -> None:
    args = flow.arguments()
    if args.transport == "stdio":
        line = flow.command(args)
        target: Any = StdioTransport(command=line[0], args=line[1:])
    else:
        target = args.url
    # init_timeout: pydantic-ai's default (5 s) is shorter than a gateway's cold start over
    # stdio on a busy machine (the handshake waits for the whole process to import).
    options: dict[str, Any] = {"init_timeout": 60}
    if args.token:
        options["headers"] = flow.headers(args)
    toolset = MCPToolset(target, **options)

    async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            result = await toolset.direct_call_tool(name, arguments)
        except ModelRetry as retry:  # the default tool_error_behavior: the model is to retry
            return {"error": str(retry)}
        return result if isinstance(result, dict) else {"error": f"not structured: {result!r}"}

    tools = sorted(t.name for t in await toolset.list_tools())
    report = await flow.run(call, args)
    report["tools"] = tools
    async with toolset:
        report["protocol"] = toolset.client.protocol_version
    flow.emit(report)


if __name__ == "__main__":
    asyncio.run(main())
