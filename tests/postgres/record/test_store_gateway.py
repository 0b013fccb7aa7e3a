"""Replicas on one PostgreSQL record, over MCP against the sandbox: the inbox cursors are
shared, every summons listed once (the record down, and the URL's validation:
tests/gateway/record/test_store_url.py; two gateway processes:
tests/postgres/team/test_team_gateways.py)."""

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


async def test_two_replicas_at_a_small_limit_list_every_summons_once(
    sandbox: SandboxControl, tmp_path: Path, pg_url: str
) -> None:
    """Two gateways (own state dirs) on one record take turns polling the flooded inbox at
    limit 4: every summons the servers hold is listed once for the team, never twice, none
    lost; the cursors are the database's, not a file's."""
    from tests.servers.wire.test_inbox_paging import drain

    platforms = ["bluesky", "twitter"]
    sandbox.flood_inbox(30, noise=10)
    truth: set[str] = set()
    for platform in platforms:
        async with Client(SPECS[platform].build(sandbox.url)) as server:
            truth |= {p["url"] for p in await drain(server, None, limit=100)}
    tables = {"store": {"url": pg_url}}

    def replica(name: str) -> Client[Any]:
        return Client(in_memory_gateway(sandbox, tmp_path / name, platforms, tables=tables))

    listed: list[str] = []
    async with replica("a") as a, replica("b") as b:
        for poll in range(80):
            got = await call(a if poll % 2 else b, "scout", source="mentions", limit=4)
            urls = [o["url"] for o in got["opportunities"] if o.get("summoned")]
            if not urls:
                break
            listed += urls
    assert len(truth) > 60
    assert len(listed) == len(set(listed))
    assert set(listed) == truth
    assert not (tmp_path / "a" / "inbox.json").exists()
    assert not (tmp_path / "b" / "inbox.json").exists()
    store = PostgresStrikeStore(pg_url)
    try:
        assert all(store.inbox_cursor(p) for p in platforms)
    finally:
        store.close()
