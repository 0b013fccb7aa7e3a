"""Records private by default on a shared PostgreSQL record: two members on a tokens
gateway over real HTTP read only their own strikes and usage (`usage_calls.principal`,
migration step 7), the auditor reads both, and `gwanjong usage --principal` filters."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import psycopg
import pytest

from gwanjong_gateway.cli.main import parser
from gwanjong_gateway.record import migrations
from gwanjong_gateway.record.store import PostgresStrikeStore
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import FORUM
from tests.gateway.strike.test_strike import drafted
from tests.gateway.team.test_team_privacy_http import (
    ALICE_REPLY,
    alice_strikes,
    bob_strikes,
    tools_of,
)
from tests.gateway.team_gateway import resource, team_gateway

pytestmark = pytest.mark.anyio


async def test_two_members_on_postgres_read_their_own_and_the_auditor_all(
    tmp_path: Path, pg_url: str
) -> None:
    forum = FakePlatform(FORUM)
    store = {"url": pg_url}
    async with team_gateway(tmp_path, forum, store=store) as team:
        async with team.client("alice") as a, team.client("bob") as b:
            alice_oid, bob_oid = await drafted(a), await drafted(b)
            handoff, alice_post = await alice_strikes(a, alice_oid)
            bob_post, seen = await bob_strikes(b, bob_oid, handoff)
        assert ALICE_REPLY not in json.dumps(seen) and "alice" not in json.dumps(seen)
        async with team.client("carol") as c:
            every = await resource(c, "gwanjong://history")
            usage = await resource(c, "gwanjong://usage")
    assert {r["record"] for r in every} == {
        handoff["record"],
        alice_post["record"],
        bob_post["record"],
    }
    assert tools_of(usage)["strike"] == 6, usage
    args = parser().parse_args(["usage", "--config", str(team.path), "--principal", "alice"])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert args.run(args) == 0
    assert "setup" in out.getvalue() and "strike" in out.getvalue()
    with psycopg.connect(pg_url) as db:
        who = {r[0] for r in db.execute("SELECT DISTINCT principal FROM usage_calls")}
    assert {"alice", "bob", "carol"} >= who >= {"alice", "bob"}


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
