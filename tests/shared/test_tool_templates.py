"""Tool schemas are parsed once per process, yet each server calls its own function."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client, Context, FastMCP

from gwanjong_shared import tool_templates
from gwanjong_shared.tool_templates import tool

pytestmark = pytest.mark.anyio


def build(greeting: str) -> FastMCP[Any]:
    mcp: FastMCP[Any] = FastMCP("t")

    @tool(mcp, description="Say hello.")
    async def hello(name: str, ctx: Context, times: int = 1) -> dict[str, str]:
        assert ctx is not None  # the context is still injected in a copy
        return {"said": " ".join([f"{greeting} {name}"] * times)}

    return mcp


async def test_each_server_calls_its_own_function_with_the_same_schema() -> None:
    before = len(tool_templates._TEMPLATES)  # pyright: ignore[reportPrivateUsage]
    one, two = build("hi"), build("hey")
    assert len(tool_templates._TEMPLATES) == before + 1  # pyright: ignore[reportPrivateUsage]
    async with Client(one) as a, Client(two) as b:
        (ta,), (tb,) = await a.list_tools(), await b.list_tools()
        assert ta.input_schema == tb.input_schema and "ctx" not in ta.input_schema["properties"]
        assert (await a.call_tool("hello", {"name": "x"})).structured_content == {"said": "hi x"}
        got = await b.call_tool("hello", {"name": "y", "times": 2})
        assert got.structured_content == {"said": "hey y hey y"}


async def test_other_options_are_parsed_anew() -> None:
    mcp: FastMCP[Any] = FastMCP("t")
    for n, description in enumerate(("First.", "Second.")):

        @tool(mcp, name=f"t{n}", description=description)
        async def same(x: int) -> dict[str, int]:
            return {"x": x}

    async with Client(mcp) as c:
        assert {t.description for t in await c.list_tools()} == {"First.", "Second."}


def test_a_server_that_changes_its_tools_schemas_changes_no_other_servers() -> None:
    def register() -> Any:
        mcp: FastMCP[Any] = FastMCP("t")

        async def add(x: int, meta_note: str = "") -> dict[str, int]:
            return {"x": x}

        shown = {"type": "object", "properties": {"x": {"type": "integer"}}}
        return tool_templates.add_tool(mcp, add, output_schema=shown, meta={"tags": ["a"]})

    first, second = register(), register()  # the second from the first's template
    second.parameters["properties"]["x"]["title"] = "changed"
    second.output_schema["properties"]["x"]["type"] = "string"
    second.meta["tags"].append("b")
    for other in (first, register()):
        assert other.parameters["properties"]["x"].get("title") != "changed"
        assert other.output_schema == {"type": "object", "properties": {"x": {"type": "integer"}}}
        assert other.meta == {"tags": ["a"]}
