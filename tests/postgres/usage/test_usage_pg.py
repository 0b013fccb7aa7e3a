"""Usage figures with `[store] url`: two gateways write into one `usage_calls` table and
`gwanjong usage` shows them all; an older table gains the `principal` column in place (two
writers on each engine, and a database that is down: tests/gateway/usage/test_usage.py)."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from fastmcp import Client

from gwanjong_gateway.record.sql import migrations
from gwanjong_gateway.record.store import PostgresStrikeStore
from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import in_memory_gateway
from tests.gateway.usage.test_usage import usage_json
from tests.mcp import call, error_of

pytestmark = pytest.mark.anyio


async def test_two_gateways_on_one_database_and_gwanjong_usage_shows_both(
    sandbox: SandboxControl, tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = {"store": {"url": pg_url}}
    kinds = []
    for name in ("a", "b"):
        mcp = in_memory_gateway(sandbox, tmp_path / name, ["devto"], tables=tables)
        async with Client(mcp) as c:  # leaving it closes the usage log: every row written
            await call(c, "scout", topic="rust async cancellation", limit=5)
            failed = await error_of(c, "draft", opportunity_id="no-such-opportunity")
            kinds.append(failed.split(":", 1)[0].split()[0])
        assert not (tmp_path / name / "usage.db").exists()
    assert kinds[0] == kinds[1]
    report = usage_json(tmp_path, pg_url, capsys)
    gateway = {g["tool"]: g for g in report["gateway_tools"]}  # type: ignore[union-attr]
    assert gateway["scout"]["calls"] == 2 and gateway["scout"]["errors"] == {}
    assert gateway["scout"]["tokens"] > 0
    assert gateway["draft"]["calls"] == 2 and gateway["draft"]["errors"] == {kinds[0]: 2}
    devto = [p for p in report["platform_tools"] if p["platform"] == "devto"]  # type: ignore[union-attr]
    assert sum(p["calls"] for p in devto) >= 2  # each gateway's scout reached Dev.to


def test_an_older_usage_table_gains_the_principal_column(pg_url: str) -> None:
    """A record at step 6 (usage rows without a principal) migrates to step 7 in place."""
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for version, statements in enumerate(migrations.POSTGRES[:6], 1):
            for statement in statements:
                db.execute(statement)  # type: ignore[arg-type]
            db.execute("INSERT INTO schema_version (version) VALUES (%s)", (version,))
        db.execute(
            "INSERT INTO usage_calls (at, scope, platform, tool, kind, ms) "
            "VALUES (1, 'gateway', '', 'scout', '', 5)"
        )
    PostgresStrikeStore(pg_url).close()
    with psycopg.connect(pg_url) as db:
        rows = db.execute("SELECT tool, principal FROM usage_calls").fetchall()
        version = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
    assert rows == [("scout", "")]
    assert version == (migrations.LATEST,)
