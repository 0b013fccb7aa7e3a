"""The `mcp` package's own client (2.x, the workspace's; run by the workspace python), in its
two documented forms:

- ``--api client``: `mcp.Client(target)` with its default ``mode="auto"``, which picks the
  2026-07-28 era (stateless: no `initialize`, no protocol session);
- ``--api session``: `ClientSession` over `stdio_client` / `streamable_http_client`, with an
  explicit `initialize()`: the 2025-11-25 handshake era.

One client for the whole flow, as an application holds one. No header of any kind is set.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import flow
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent


def stdio_params(line: list[str]) -> StdioServerParameters:
    return StdioServerParameters(command=line[0], args=line[1:])


@contextlib.asynccontextmanager
async def session_api(args: Any) -> AsyncIterator[tuple[Any, str]]:
    async with contextlib.AsyncExitStack() as stack:
        if args.transport == "stdio":
            read, write = await stack.enter_async_context(
                stdio_client(stdio_params(flow.command(args)))
            )
        else:
            read, write = await stack.enter_async_context(streamable_http_client(args.url))
        session = await stack.enter_async_context(ClientSession(read, write))
        initialized = await session.initialize()
        yield session, str(initialized.protocol_version)


@contextlib.asynccontextmanager
async def client_api(args: Any) -> AsyncIterator[tuple[Any, str]]:
    target: Any = stdio_params(flow.command(args)) if args.transport == "stdio" else args.url
    async with Client(target) as client:
        yield client, client.protocol_version


async def main() -> None:
    args = flow.arguments(
        lambda p: p.add_argument("--api", choices=["client", "session"], required=True)
    )
    opened = client_api(args) if args.api == "client" else session_api(args)
    async with opened as (client, version):
        tools = sorted(t.name for t in (await client.list_tools()).tools)

        async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            result: CallToolResult = await client.call_tool(name, arguments)
            if result.is_error:
                return {
                    "error": "\n".join(c.text for c in result.content if isinstance(c, TextContent))
                }
            return result.structured_content or {"error": "no structured content"}

        report = await flow.run(call, args)
    report["tools"] = tools
    report["protocol"] = version
    flow.emit(report)


if __name__ == "__main__":
    asyncio.run(main())
