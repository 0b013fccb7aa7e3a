"""Every tool the gateway shows the model can be an OpenAI strict function (openai-agents
and LangChain serve a tool non-strict when its schema cannot be made strict). `setup`'s
`credentials`, an open map, is shown only when an operator opted in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.mcp import error_of
from tests.strict_schema import convert, strict_problems

pytestmark = pytest.mark.anyio


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "additionalProperties": False}


def test_the_checker_finds_what_strict_mode_refuses() -> None:
    text = {"type": "string"}
    assert strict_problems(obj(a=text, b={"type": "integer", "default": 3})) == []
    # optional arguments are fine: hosts send them all (required = every property)
    assert convert(obj(a=text))["required"] == ["a"]
    open_map = {"type": "object", "additionalProperties": {"type": "string"}}
    named_map = {**open_map, "propertyNames": {"maxLength": 64}}
    bad = {
        "open map": obj(m=open_map),
        "names": obj(m=named_map),
        "no properties": obj(m={"type": "object"}),
        "nullable map": obj(m={"anyOf": [open_map, {"type": "null"}]}),
        "listed maps": obj(m={"type": "array", "items": open_map}),
        "open root": {"type": "object", "properties": {}, "additionalProperties": True},
        "patterns": obj(m={"type": "object", "properties": {}, "patternProperties": {}}),
        "not an object": {"type": "string"},
    }
    for why, schema in bad.items():
        assert strict_problems(schema), why
    assert any("propertyNames" in p for p in strict_problems(bad["names"]))
    assert any("$.properties.m.anyOf[0]" in p for p in strict_problems(bad["nullable map"]))


async def test_every_tool_can_be_strict_and_credentials_refused_unless_opted_in(
    forum: FakePlatform, tmp_path: Path
) -> None:
    async with Client(fake_gateway(tmp_path, forum)) as client:
        tools = {t.name: t for t in await client.list_tools()}
        # credentials sent anyway are refused, with the other ways to give them
        keys = {"DEVTO_API_KEY": "from-the-model"}
        text = await error_of(client, "setup", action="save", platform="devto", credentials=keys)
    assert text.startswith("not_supported: ") and "gwanjong setup devto" in text
    assert "from-the-model" not in text
    assert not (tmp_path / ".env").exists()
    assert {"scout", "draft", "strike", "status", "setup"} <= set(tools)
    for name, tool in tools.items():
        assert strict_problems(tool.input_schema) == [], name
        # inlined once when registered (the gateway does not dereference per request)
        assert "$ref" not in json.dumps([tool.input_schema, tool.output_schema]), name
    assert "credentials" not in tools["setup"].input_schema["properties"]
    # shown only when the operator opted in: documented as non-strict, an open map
    settings = {"model_may_save_credentials": True}
    async with Client(fake_gateway(tmp_path / "opted-in", forum, settings=settings)) as client:
        setup = next(t for t in await client.list_tools() if t.name == "setup")
    assert "credentials" in setup.input_schema["properties"]
    assert any("credentials" in p for p in strict_problems(setup.input_schema))
