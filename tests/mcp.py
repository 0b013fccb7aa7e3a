"""Calling a tool in tests: its structured result, or the text of its error."""

from __future__ import annotations

from typing import Any

from fastmcp import Client


async def call(client: Client[Any], tool: str, **args: Any) -> Any:
    result = await client.call_tool(tool, args)
    assert result.structured_content is not None, f"{tool} returned no structured content"
    return result.structured_content


async def error_of(client: Client[Any], tool: str, **args: Any) -> str:
    result = await client.call_tool(tool, args, raise_on_error=False)
    assert result.is_error, (
        f"{tool}({args}) should have failed but returned {result.structured_content}"
    )
    text = result.content[0].text  # type: ignore[union-attr]
    assert "Traceback" not in text
    return text
