"""Per-call work the gateway skips: results validated once, absent modules probed once, the
collector woken less often."""

from __future__ import annotations

import gc
import importlib
import sys
import weakref
from typing import Any

import pytest
from fastmcp import Client, FastMCP
from fastmcp.client.transports import FastMCPTransport
from fastmcp.tools.base import ToolResult

from gwanjong_gateway.cli.lean import (
    YOUNG_THRESHOLD,
    collect_less,
    loop_options,
    remember_missing_modules,
)
from gwanjong_gateway.platforms.hosting import InProcessTransport

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def off_schema_server() -> FastMCP[Any]:
    """A tool whose structured content does not match the outputSchema it advertises."""
    server: FastMCP[Any] = FastMCP("off-schema")

    @server.tool(output_schema=SCHEMA)
    def count() -> ToolResult:
        return ToolResult(structured_content={"n": "not a number"})

    return server


@pytest.mark.anyio
async def test_in_process_platforms_leave_the_result_to_the_typed_boundary() -> None:
    # the plain in-memory transport's client checks the schema; ours leaves it to the models
    async with Client(FastMCPTransport(off_schema_server())) as client:
        with pytest.raises(RuntimeError, match="Invalid structured content"):
            await client.call_tool_mcp("count", {})
    async with Client(InProcessTransport(off_schema_server())) as client:
        result = await client.call_tool_mcp("count", {})
    assert not result.is_error
    assert result.structured_content == {"n": "not a number"}  # as sent, for the models to judge


def test_an_absent_module_fails_at_once_with_the_same_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    name = "gwanjong_no_such_module_xyz"
    monkeypatch.delitem(sys.modules, name, raising=False)
    assert remember_missing_modules((name, "json")) == [name]  # json is installed: left alone
    assert sys.modules[name] is None
    with pytest.raises(ImportError):
        importlib.import_module(name)
    assert sys.modules["json"] is not None
    monkeypatch.delitem(sys.modules, name)


def test_uvloop_only_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "uvloop" else real(name)
    )
    assert loop_options() == {}
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: object())
    assert loop_options() == {"use_uvloop": True}


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_the_collector_scans_start_up_no_more_and_still_frees_cycles() -> None:
    before = gc.get_threshold()
    try:
        collect_less()
        assert gc.get_freeze_count() > 0  # what start-up built is never scanned again
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
        cycle = _Cycle()
        gone = weakref.ref(cycle)
        del cycle
        gc.collect()
        assert gone() is None  # a cycle made after start-up is still freed
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
