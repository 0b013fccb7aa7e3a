"""A pipeline whose state lives outside the process (`StateSource`): found by an argument
the server minted, kept only when the tool succeeds, and reported by counts."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import pytest
from fastmcp import Client, Context, FastMCP
from pydantic import Field

from gwanjong_shared.pipeline import Pipeline, PipelineState, Stored, ToolSpec
from tests.mcp import call, error_of

pytestmark = pytest.mark.anyio


class Notes(PipelineState):
    found: dict[str, str] = Field(default_factory=dict)
    read: dict[str, str] = Field(default_factory=dict)


class Rows:
    """A stand-in for a database table: one row per ticket, kept between clients."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[str, str]] = {}
        self.seq = 0

    def caller(self, ctx: Context) -> str:
        return "anyone"

    @asynccontextmanager
    async def hold(
        self, caller: str, spec: ToolSpec, arguments: Mapping[str, Any]
    ) -> AsyncIterator[Notes]:
        ticket = arguments.get("ticket")
        row = self.rows.get(ticket, {}) if isinstance(ticket, str) else {}
        state = Notes(
            found={ticket: row["found"]} if "found" in row else {},  # type: ignore[dict-item]
            read={ticket: row["read"]} if "read" in row else {},  # type: ignore[dict-item]
        )
        yield state  # an exception here leaves the rows as they were
        for name in ("found", "read"):
            for key, value in getattr(state, name).items():
                self.rows.setdefault(key, {})[name] = value

    async def counts(self, caller: str) -> dict[str, int] | None:
        return {
            "found": len(self.rows),
            "read": sum(1 for r in self.rows.values() if "read" in r),
        }


def build(rows: Rows) -> FastMCP:
    mcp = FastMCP("source-test")
    pipeline = Pipeline(mcp, Notes, source=rows)

    @pipeline.tool(stores="found")
    async def find(text: str) -> Stored[str]:
        rows.seq += 1
        ticket = f"t{rows.seq}"
        return Stored(ticket, store={"found": {ticket: text}})

    @pipeline.tool(requires="found", stores="read")
    async def read(ticket: str, state: Notes) -> Stored[str]:
        if state.found[ticket] == "boom":
            raise ValueError("nothing is kept from a failed call")
        return Stored("ok", store={"read": {ticket: state.found[ticket].upper()}})

    return mcp


async def test_state_found_by_argument_across_clients_and_servers() -> None:
    rows = Rows()
    async with Client(build(rows)) as first:
        ticket = (await first.call_tool("find", {"text": "hello"})).data
    async with Client(build(rows)) as second:  # another server object, the same rows
        assert (await second.call_tool("read", {"ticket": ticket})).data == "ok"
        assert rows.rows[ticket] == {"found": "hello", "read": "HELLO"}
        assert (await call(second, "status"))["state"] == {
            "found": {"populated": True, "count": 1},
            "read": {"populated": True, "count": 1},
        }
        assert "Call `find` first" in await error_of(second, "read", ticket="t999")
        boom = (await second.call_tool("find", {"text": "boom"})).data
        await error_of(second, "read", ticket=boom)
        assert "read" not in rows.rows[boom]


async def test_the_memory_store_is_only_for_the_default_source() -> None:
    pipeline = Pipeline(FastMCP("x"), Notes, source=Rows())
    with pytest.raises(RuntimeError, match="own source"):
        _ = pipeline.store
