"""FastMCP's lines for ordinary tool errors stay off stderr; unexpected ones stay, plain."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from fastmcp import Client, FastMCP
from fastmcp.exceptions import ToolError

from gwanjong_shared.kit.quiet import quiet_fastmcp

pytestmark = pytest.mark.anyio


def _server() -> FastMCP[Any]:
    mcp: FastMCP[Any] = FastMCP("t")

    @mcp.tool
    def refuse(n: int) -> int:
        raise ToolError("no")

    @mcp.tool
    def crash() -> int:
        raise RuntimeError("boom")

    return mcp


class _Seen(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def test_ordinary_tool_errors_are_not_logged_unexpected_ones_are() -> None:
    quiet_fastmcp()
    fastmcp_log = logging.getLogger("fastmcp")
    assert not any(type(h).__name__ == "RichHandler" for h in fastmcp_log.handlers)
    seen = _Seen()
    server_log = logging.getLogger("fastmcp.server.server")
    server_log.addHandler(seen)
    try:
        async with Client(_server()) as client:
            for name, args in (("refuse", {"n": 1}), ("refuse", {"n": "x"}), ("crash", {})):
                result = await client.call_tool(name, args, raise_on_error=False)
                assert result.is_error
    finally:
        server_log.removeHandler(seen)
    # handlers see what passed the logger's filters
    said = [r.getMessage() for r in seen.records]
    assert not any("Invalid arguments" in m for m in said), said
    assert said == ["Error calling tool 'crash'"]
