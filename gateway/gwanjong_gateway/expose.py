"""Pass chosen raw platform tools through, by namespaced name (`expose` in gateway.toml).

Hidden by default: the point of the gateway is a small tool list. A user who wants, say,
`devto__get_post` as well lists it, and it is forwarded verbatim to that server.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.tools.base import Tool, ToolResult
from mcp.types import TextContent
from pydantic import PrivateAttr

from gwanjong_gateway.upstreams import SEP, Upstreams

log = logging.getLogger(__name__)


class ForwardedTool(Tool):
    upstream_name: str
    upstream_tool: str
    _upstreams: Upstreams | None = PrivateAttr(default=None)

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        assert self._upstreams is not None
        outcome = await self._upstreams.call(self.upstream_name, self.upstream_tool, arguments)
        if not outcome.ok:
            raise ToolError(outcome.error)
        data = outcome.data if isinstance(outcome.data, dict) else {"result": outcome.data}
        text = json.dumps(data, ensure_ascii=False)
        return ToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def register_exposed(mcp: FastMCP[Any], upstreams: Upstreams, names: list[str]) -> list[str]:
    added: list[str] = []
    for name in names:
        platform, _, tool = name.partition(SEP)
        upstream = upstreams.get(platform)
        if upstream is None or tool not in upstream.tools:
            log.warning("expose: %s is not available (platform down or no such tool)", name)
            continue
        source = upstream.tools[tool]
        forwarded = ForwardedTool(
            name=name,
            description=f"[{platform}] {source.description or ''}",
            parameters=source.input_schema,
            annotations=source.annotations,
            upstream_name=platform,
            upstream_tool=tool,
        )
        forwarded._upstreams = upstreams
        mcp.add_tool(forwarded)
        added.append(name)
    return added
