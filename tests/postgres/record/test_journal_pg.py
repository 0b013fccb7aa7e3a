"""The write journal with a PostgreSQL record (`[store] url`): the journal stays local to
the gateway process. The database refuses every connection while a write is out, so its
outcome cannot be recorded: the answer says the outcome is unknown, exactly one write
goes out, and once the database is back a new gateway's replay and settle loop record it
`posted` and scout does not offer the target again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest
from fastmcp import Client
from psycopg import sql

from gwanjong_gateway.record.journal import Journal
from gwanjong_gateway.record.store import PostgresStrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import LINKS
from tests.gateway.record.test_journal import TITLE, drafted, offered, scout, strike_while_held
from tests.mcp import until

pytestmark = pytest.mark.anyio


def shut(pg_server: str, name: str, allow: bool) -> None:
    """Let no one connect to database ``name`` (and end its sessions), or let them again."""
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(
            sql.SQL("ALTER DATABASE {} WITH ALLOW_CONNECTIONS {}").format(
                sql.Identifier(name), sql.SQL("true" if allow else "false")
            )
        )
        if not allow:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )


def rows(pg_url: str) -> list[Any]:
    store = PostgresStrikeStore(pg_url)
    try:
        return [r for r in store.history(limit=50) if r.action == "comment"]
    finally:
        store.close()


async def test_a_write_whose_database_went_away_is_journalled_and_settled(
    tmp_path: Path, pg_server: str, pg_url: str
) -> None:
    name = pg_url.rsplit("/", 1)[1]
    store = {"store": {"url": pg_url, "connect_timeout_s": 2}}
    links = FakePlatform(LINKS)
    links.hang("write_comment")

    async def refuse_connections() -> None:
        await anyio.to_thread.run_sync(shut, pg_server, name, False)

    try:
        async with Client(fake_gateway(tmp_path, links, tables=store)) as client:
            oid = await drafted(client)
            first = await strike_while_held(client, links, oid, refuse_connections)
        text = first.get("error", "")
        assert "outcome is unknown" in text and "will not send it again" in text, first
        assert "nothing was written" not in text.lower(), first
        assert len(Journal(tmp_path).open_entries()) == 1  # local to this gateway
    finally:
        await anyio.to_thread.run_sync(shut, pg_server, name, True)
    links.show_late()
    async with Client(fake_gateway(tmp_path, links, tables=store)) as client:
        assert not any(TITLE.lower() in t.lower() for t in offered(await scout(client)))
        await until(lambda: [r.status for r in rows(pg_url)] == [StrikeStatus.POSTED])
    assert len(links.written("write_comment")) == 1
