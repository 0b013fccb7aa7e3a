"""X's prices through the real X server (its SDK over HTTP to the sandbox): the reads and
the write of a summoned reply are counted at the profile's rates, and a budget spent
refuses the next read before any request reaches the platform."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from decimal import Decimal
from pathlib import Path

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import in_memory_gateway
from tests.gateway.strike.test_strike_platforms import drafted, strike
from tests.platforms import needs

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]


def spend_rows(state_dir: Path) -> list[tuple[str, int]]:
    with closing(sqlite3.connect(state_dir / "usage.db")) as db:
        return db.execute("SELECT tool, micros FROM spend WHERE platform = 'twitter'").fetchall()


async def test_x_calls_are_counted_at_xs_rates_and_a_spent_budget_refuses_reads(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("twitter")
    platform = {"min_interval_s": 0, "disclosure": ""}
    async with Client(in_memory_gateway(sandbox, tmp_path, ["twitter"], platform=platform)) as c:
        oid = await drafted(c, "twitter", "MCP gateway design feedback", "feedback")
        assert (await strike(c, oid, "One gateway, fewer tools."))["status"] == "posted"
    rows = spend_rows(tmp_path)
    writes = [m for tool, m in rows if tool == "write_comment"]
    reads = [m for tool, m in rows if tool != "write_comment"]
    assert writes == [15_000]  # $0.015 a post created
    assert reads and all(m % 5_000 == 0 for m in reads) and sum(reads) > 0  # $0.005 a post
    spent = sum(m for _, m in rows)

    # The same state_dir, with a budget a cent above today's spend: a scout's read would
    # reserve more than that, so it is refused before X is asked.
    budget = {"limits": {"twitter": {"daily_usd": float(Decimal(spent + 10_000) / 10**6)}}}
    gateway = in_memory_gateway(sandbox, tmp_path, ["twitter"], platform=platform, tables=budget)
    async with Client(gateway) as c:
        asked = 0
        for _ in range(2):
            # (the first scout starts the server, which looks its account up: free)
            asked = sandbox.requests().get("twitter", 0)
            found = await c.call_tool("scout", {"topic": "rust", "limit": 10})
            scouted = found.structured_content
            assert scouted is not None
            error = scouted["errors"]["twitter"]
            assert "rate_limited retry_after=" in error, error
            assert "Daily spend budget reached on twitter" in error and "Nothing was sent" in error
        assert sandbox.requests().get("twitter", 0) == asked  # no read reached X
