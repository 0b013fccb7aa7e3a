"""A failed contract tool carries its error as data (`structuredContent.error`) beside
the `kind: ...` text, from a real server through the real SDK and the sandbox (every tool's
failures and successes, on every platform: test_results_schema.py)."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult

from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract.errors import ErrorKind, ErrorResult, parse_error
from gwanjong_shared.contract.rate import window_from_meta
from tests.platforms import SPECS

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py


def error_of(result: CallToolResult) -> ErrorResult:
    assert result.is_error, result.content
    text = " ".join(getattr(c, "text", "") for c in result.content)
    error = ErrorResult.model_validate(result.structured_content)
    # The text says the same, for people and agents that read text only.
    assert parse_error(text) == (error.error.kind, error.error.message, error.error.retry_after)
    return error


async def call(sandbox: SandboxControl, tool: str, **args: Any) -> CallToolResult:
    async with Client(SPECS["devto"].build(sandbox.url)) as client:
        return await client.call_tool_mcp(tool, args)


async def test_a_throttled_call_carries_retry_after(sandbox: SandboxControl) -> None:
    sandbox.fault("devto", status=429, retry_after=42, count=5, match="/api/articles")
    error = error_of(await call(sandbox, "search", query="rust"))
    assert error.error.kind is ErrorKind.RATE_LIMITED
    assert error.error.retry_after == 42


async def test_bad_arguments_carry_a_kind(sandbox: SandboxControl) -> None:
    bad = error_of(await call(sandbox, "trending", limit=0))
    assert bad.error.kind is ErrorKind.INVALID_INPUT and "limit" in bad.error.message


async def test_an_unknown_tool_is_a_protocol_error(sandbox: SandboxControl) -> None:
    # no tool ran, so no tool result: JSON-RPC -32602, as MCP says (test_unknown_tool.py)
    with pytest.raises(MCPError) as caught:
        await call(sandbox, "no_such_tool")
    assert caught.value.error.code == INVALID_PARAMS
    assert "no_such_tool" in caught.value.error.message


async def test_a_429_carries_the_rate_window_too(sandbox: SandboxControl) -> None:
    sandbox.fault("twitter", status=429, retry_after=42, count=5, match="/2/tweets/search")
    async with Client(SPECS["twitter"].build(sandbox.url)) as client:
        result = await client.call_tool_mcp("search", {"query": "rust"})
    assert error_of(result).error.kind is ErrorKind.RATE_LIMITED
    window = window_from_meta(result.meta)
    assert window is not None and window.remaining == 0 and window.limit == 450
