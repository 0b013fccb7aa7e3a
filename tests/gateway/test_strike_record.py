"""The strike record under trouble: locked by another process, corrupt at start, and an
unexpected exception inside strike. Each answer is kind-prefixed; nothing is written
unrecorded."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client, FastMCP

from gwanjong_gateway.config import parse
from gwanjong_gateway.server import build_gateway
from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import config_text, in_memory_gateway
from tests.gateway.test_strike import drafted, strike
from tests.mcp import call, error_of
from tests.platforms import SPECS

pytestmark = pytest.mark.anyio


async def test_a_locked_record_answers_busy_and_writes_nothing(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    async with Client(in_memory_gateway(sandbox, tmp_path, ["devto"])) as client:
        oid = await drafted(client)
        holder = sqlite3.connect(tmp_path / "gwanjong.db", isolation_level=None)
        try:
            holder.execute("BEGIN IMMEDIATE")  # what another gwanjong process's claim holds
            status = await call(client, "status")
            assert "strike_record" not in status and status["unsettled_writes"] == 0
            busy = await error_of(
                client,
                "strike",
                opportunity_id=oid,
                action="post",
                content="Guards around every await.",
                title="Cancellation-safe handlers",
            )
            assert busy == (
                "unavailable: the strike record is busy (locked by another gwanjong process); "
                "try again in 2 s."
            )
            assert sandbox.writes("devto") == []
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert (await strike(client, oid))["status"] == "posted"
    assert len(sandbox.writes("devto")) == 1


async def test_a_corrupt_record_leaves_the_gateway_up_and_refuses_writes(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    db = tmp_path / "gwanjong.db"
    db.write_bytes(b"this is not a database, it is a shopping list\n" * 200)
    async with Client(in_memory_gateway(sandbox, tmp_path, ["devto"])) as client:
        oid = await drafted(client)  # scout and draft work without the record
        status = await call(client, "status")
        assert str(db) in status["strike_record"] and "mv " in status["strike_record"]
        text = await error_of(
            client, "strike", opportunity_id=oid, action="post", content="Hello.", title="Hi"
        )
        assert text.startswith(f"unavailable: the strike record {db} cannot be read"), text
        assert f"mv {db} {db}.broken" in text
    assert sandbox.writes("devto") == []
    assert db.read_bytes().startswith(b"this is not a database")  # left for the person


def broken_validate(real: FastMCP[Any]) -> FastMCP[Any]:
    """The real Dev.to server, except that `validate` answers with a malformed shape."""
    outer: FastMCP[Any] = FastMCP("devto")
    outer.mount(real)

    @outer.tool(name="validate")
    def validate(
        action: str, body: str, title: str = "", post_id: str | None = None
    ) -> dict[str, Any]:
        return {"ok": True, "allowed": "auto", "problems": [], "length": "not a mapping"}

    return outer


async def test_an_unexpected_exception_in_strike_is_kind_prefixed(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    config = parse(config_text(tmp_path, ["devto"]))
    transports = {"devto": broken_validate(SPECS["devto"].build(sandbox.url))}
    async with Client(build_gateway(config, environ={}, transports=transports)) as client:
        oid = await drafted(client)
        text = await error_of(
            client, "strike", opportunity_id=oid, action="post", content="Hello.", title="Hi"
        )
        assert text.startswith("unavailable: strike stopped on an unexpected error"), text
        assert "Error calling tool" not in text
    assert sandbox.writes("devto") == []
