"""Replicas on one PostgreSQL record, over MCP against the sandbox: the inbox cursors are
shared (the record down, and the URL's validation: tests/gateway/record/test_store_url.py;
two gateway processes: tests/postgres/team/test_team_gateways.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_gateway.record.store import PostgresStrikeStore
from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import in_memory_gateway
from tests.mcp import call
from tests.platforms import SPECS

pytestmark = pytest.mark.anyio


async def test_replicas_on_one_database_share_the_inbox_cursors(
    sandbox: SandboxControl, tmp_path: Path, pg_url: str
) -> None:
    """A summons listed by one replica is not listed again by another (own state dirs)."""
    platforms = ["bluesky", "twitter"]
    tables = {"store": {"url": pg_url}}

    def replica(name: str) -> Client[Any]:
        return Client(in_memory_gateway(sandbox, tmp_path / name, platforms, tables=tables))

    async with replica("a") as a:
        first = await call(a, "scout", source="mentions", limit=25)
    assert {o["platform"] for o in first["opportunities"] if o.get("summoned")} == set(platforms)
    async with replica("b") as b:
        again = await call(b, "scout", source="mentions", limit=25)
    assert [o for o in again["opportunities"] if o.get("summoned")] == []
    assert not (tmp_path / "a" / "inbox.json").exists()
    store = PostgresStrikeStore(pg_url)
    try:
        assert all(store.inbox_cursor(p) for p in platforms)
    finally:
        store.close()


async def test_two_replicas_at_a_small_limit_list_every_summons_once(
    sandbox: SandboxControl, tmp_path: Path, pg_url: str
) -> None:
    """Two gateways on one record take turns polling the flooded inbox at limit 4: every
    summons the server holds is listed once for the team, never twice, none lost."""
    from tests.servers.wire.test_inbox_paging import drain

    sandbox.flood_inbox(30, noise=10)
    async with Client(SPECS["bluesky"].build(sandbox.url)) as server:
        truth = {p["url"] for p in await drain(server, None, limit=100)}
    tables = {"store": {"url": pg_url}}
    listed: list[str] = []
    async with (
        Client(in_memory_gateway(sandbox, tmp_path / "a", ["bluesky"], tables=tables)) as a,
        Client(in_memory_gateway(sandbox, tmp_path / "b", ["bluesky"], tables=tables)) as b,
    ):
        for poll in range(40):
            got = await call(a if poll % 2 else b, "scout", source="mentions", limit=4)
            urls = [o["url"] for o in got["opportunities"] if o.get("summoned")]
            if not urls:
                break
            listed += urls
    assert len(truth) > 30
    assert len(listed) == len(set(listed))
    assert set(listed) == truth
