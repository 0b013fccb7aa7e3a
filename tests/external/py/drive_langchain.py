"""langchain-mcp-adapters (run by .tools/py/langchain/bin/python): the documented default,
`MultiServerMCPClient({...}).get_tools()`, whose tools open a new MCP session for every
call (over stdio a new gateway process, over HTTP a new Mcp-Session-Id). Each tool is
invoked as an agent's ToolNode does, with a tool call, so the answer is LangChain's
ToolMessage: its artifact holds the structured result, its status says error."""

# pyright: reportMissingImports=false, reportPrivateImportUsage=false
# (checked against the workspace's mcp 2.x; this driver runs with its venv's mcp 1.x)
from __future__ import annotations

import asyncio
import json
from typing import Any

import flow
from langchain_mcp_adapters.client import MultiServerMCPClient
from mcp.client.streamable_http import create_mcp_http_client
from mcp.types import LATEST_PROTOCOL_VERSION


async def main() -> None:
    args = flow.arguments()
    wire = flow.Wire()
    if args.transport == "stdio":
        line = flow.command(args)
        connection: dict[str, Any] = {"transport": "stdio", "command": line[0], "args": line[1:]}
    else:

        def watched(
            headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None
        ) -> Any:
            http = create_mcp_http_client(headers=headers, timeout=timeout, auth=auth)
            http.event_hooks["response"].append(wire.hook)
            return http

        connection = {"transport": "http", "url": args.url, "httpx_client_factory": watched}
        if args.token:
            connection["headers"] = flow.headers(args)
    client = MultiServerMCPClient({"gwanjong": connection})  # type: ignore[dict-item]
    tools = {tool.name: tool for tool in await client.get_tools()}

    async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        message = await tools[name].ainvoke(
            {"type": "tool_call", "id": f"call-{name}", "name": name, "args": arguments}
        )
        if message.status == "error":
            return {"error": text(message.content)}
        structured = (message.artifact or {}).get("structured_content")
        return structured if structured is not None else {"error": "no structured content"}

    report = await flow.run(call, args)
    report["tools"] = sorted(tools)
    report["offers"] = LATEST_PROTOCOL_VERSION
    report["wire"] = wire.report()
    flow.emit(report)


def text(content: Any) -> str:
    """A ToolMessage's content: a string, or content blocks (their texts, joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in content)
    return json.dumps(content)


if __name__ == "__main__":
    asyncio.run(main())
