"""Calling a tool in tests: its structured result, or the text of its error; waiting for a
gateway's spawned servers to be up."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from fastmcp import Client
from mcp.types import ElicitResult


async def approves(message: str, response_type: Any, params: Any, ctx: Any) -> ElicitResult:
    """A person who approves every dialog: for a test whose subject is not the approval of
    a write its platform sends only once a person approved it (a Dev.to article)."""
    return ElicitResult(action="accept", content={"decision": "approve"})


async def call(client: Client[Any], tool: str, **args: Any) -> Any:
    result = await client.call_tool(tool, args)
    assert result.structured_content is not None, f"{tool} returned no structured content"
    return result.structured_content


async def outcome(client: Client[Any], tool: str, **args: Any) -> dict[str, Any]:
    """The structured result, or ``{"error": text}`` when the tool answered an error."""
    result = await client.call_tool(tool, args, raise_on_error=False)
    if result.is_error:
        return {"error": result.content[0].text}  # type: ignore[union-attr]
    assert result.structured_content is not None
    return result.structured_content


async def error_of(client: Client[Any], tool: str, **args: Any) -> str:
    result = await client.call_tool(tool, args, raise_on_error=False)
    assert result.is_error, (
        f"{tool}({args}) should have failed but returned {result.structured_content}"
    )
    text = result.content[0].text  # type: ignore[union-attr]
    assert "Traceback" not in text
    return text


async def until_up(client: Client[Any], names: list[str], seconds: float = 300) -> None:
    """Start these servers (they start on first use) and wait until they are up. A call
    waits for a starting server only within its call time, and on a loaded machine a cold
    start can take longer: ``seconds`` is a generous deadline that only catches a hang."""
    with anyio.fail_after(seconds):
        for name in names:  # `check` calls capabilities: the first use starts the server
            await client.call_tool("setup", {"action": "check", "platform": name})
        while True:
            status = (await client.call_tool("status", {})).structured_content or {}
            if all(status["platforms"][n]["health"] == "up" for n in names):
                return
            await anyio.sleep(0.2)


async def until(
    predicate: Callable[[], bool | Awaitable[bool]], seconds: float = 60, every: float = 0.1
) -> None:
    """Poll ``predicate`` (plain or async) until it holds; the deadline only catches a hang."""
    with anyio.fail_after(seconds):
        while not await _held(predicate()):
            await anyio.sleep(every)


async def _held(answer: bool | Awaitable[bool]) -> bool:
    return await answer if inspect.isawaitable(answer) else answer
