"""Records private by default: two members on one gateway (tokens, real HTTP, on each
record engine: SQLite, and a shared PostgreSQL in the postgres tier) each read only their own strikes and usage, through every resource, the strike tool's
duplicate and confirm_handoff answers, status and the CLI's `--principal`; the auditor
(`[auth] auditors`) reads both. The CLI without a filter is the host's operator: all."""

from __future__ import annotations

import contextlib
import io
import json
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from mcp.shared.exceptions import MCPError

from gwanjong_gateway.cli.history import print_history
from gwanjong_gateway.cli.main import parser
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.usage.log import open_usage
from tests.fakes.platform import FakePlatform
from tests.gateway.helpers import resource
from tests.gateway.strike.test_strike import drafted
from tests.gateway.team_gateway import team_gateway
from tests.mcp import call, error_of

pytestmark = pytest.mark.anyio
ALICE_REPLY = "Alice-private-reply: pin the executor before you measure."
ALICE_POST = "Alice-private-post about structured concurrency."
BOB_REPLY = "Bob's reply to the same thread."
BOB_POST = "Bob-own-post on cancellation scopes."
URL = "https://forum.example/by-hand/1"


async def not_found(c: Client[Any], record: int) -> str:
    with pytest.raises(MCPError, match="not_found") as raised:
        await c.read_resource(f"gwanjong://strike/{record}")
    return str(raised.value).replace(str(record), "N")


def tools_of(usage: dict[str, Any]) -> dict[str, int]:
    return {g["tool"]: g["calls"] for g in usage["gateway_tools"]}


def usage_cli(config: Path, principal: str, *more: str) -> str:
    """What `gwanjong usage --principal` prints."""
    args = parser().parse_args(["usage", "--config", str(config), "--principal", principal, *more])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert args.run(args) == 0
    return out.getvalue()


async def alice_strikes(a: Client[Any], oid: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Alice's hand-off (a comment with her text, pending) and her posted post."""
    handoff = await call(a, "strike", opportunity_id=oid, action="comment", content=ALICE_REPLY)
    assert handoff["status"] == "handoff", handoff
    posted = await call(
        a, "strike", opportunity_id=oid, action="post", content=ALICE_POST, title="Alice's"
    )
    assert posted["status"] == "posted", posted
    await call(a, "setup", action="guide")  # a call only Alice makes
    mine = await resource(a, "gwanjong://history")
    assert {r["record"] for r in mine} == {handoff["record"], posted["record"]}
    own = await resource(a, f"gwanjong://strike/{handoff['record']}")
    assert ALICE_REPLY in own["content"] and own["context"]
    return handoff, posted


async def bob_strikes(
    b: Client[Any], oid: str, handoff: dict[str, Any]
) -> tuple[dict[str, Any], list[Any]]:
    """Bob on the thread he drafted before Alice took it: every answer he gets."""
    seen: list[Any] = []
    taken = await call(b, "strike", opportunity_id=oid, action="comment", content=BOB_REPLY)
    seen.append(taken)
    assert taken["status"] == "duplicate", taken
    assert "another member" in taken["reason"] and "earlier" not in taken
    # Alice's hand-off is not Bob's to confirm, nor to see, by action or by record.
    none = await error_of(b, "strike", opportunity_id=oid, action="confirm_handoff", content=URL)
    assert "There is no pending hand-off" in none, none
    named = await error_of(
        b,
        "strike",
        opportunity_id=oid,
        action="confirm_handoff",
        handoff=handoff["record"],
        content=URL,
    )
    assert f"There is no hand-off h{handoff['record']}." in named, named
    seen += [none, named]
    posted = await call(
        b, "strike", opportunity_id=oid, action="post", content=BOB_POST, title="Bob's"
    )
    assert posted["status"] == "posted", posted
    seen.append(posted)
    history = await resource(b, "gwanjong://history")
    on_devto = await resource(b, "gwanjong://history/devto")
    assert [r["record"] for r in history] == [posted["record"]], history
    assert on_devto == history
    # Alice's record answers exactly as a record that does not exist.
    assert await not_found(b, handoff["record"]) == await not_found(b, 99_999)
    usage = await resource(b, "gwanjong://usage")
    status = await call(b, "status")
    seen += [history, usage, status]
    assert "setup" not in tools_of(usage), usage
    assert tools_of(usage)["strike"] == 4, usage  # his own four, not Alice's two
    assert not any("setup" in line for line in status["usage_7d"]), status
    return posted, seen


async def test_each_member_reads_only_their_own_record_and_the_auditor_reads_all(
    forum: FakePlatform, tmp_path: Path, mode: str, store_url: str
) -> None:
    tables = {"store": {"url": store_url}} if store_url else None
    async with team_gateway(tmp_path, forum, tables=tables) as team:
        async with team.client("alice", mode) as a, team.client("bob", mode) as b:
            alice_oid, bob_oid = await drafted(a), await drafted(b)  # the same thread
            handoff, alice_post = await alice_strikes(a, alice_oid)
            bob_post, seen = await bob_strikes(b, bob_oid, handoff)
        shown = json.dumps(seen)
        for secret in (ALICE_REPLY, ALICE_POST, "Alice's", "alice"):
            assert secret not in shown, secret
        async with team.client("alice", mode) as a:
            assert await not_found(a, bob_post["record"]) == await not_found(a, 99_999)
            status = await call(a, "status")
            assert any("setup" in line for line in status["usage_7d"]), status
        async with team.client("carol", mode) as c:  # the auditor
            every = await resource(c, "gwanjong://history")
            audit = await resource(c, f"gwanjong://strike/{handoff['record']}")
            usage = await resource(c, "gwanjong://usage")
        assert {r["record"] for r in every} == {
            handoff["record"],
            alice_post["record"],
            bob_post["record"],
        }
        assert audit["content"].startswith(ALICE_REPLY) and audit["status"] == "handoff"
        assert tools_of(usage)["strike"] == 6 and tools_of(usage)["setup"] == 1, usage

        # The CLI is the host's operator: everyone's rows, or one member's with --principal.
        everyone, bobs = io.StringIO(), io.StringIO()
        assert print_history(team.config, None, None, 30, True, out=everyone) == 0
        assert print_history(team.config, None, None, 30, True, out=bobs, principal="bob") == 0
        assert sorted(r["by"] for r in json.loads(everyone.getvalue())) == [
            "alice",
            "alice",
            "bob",
        ]
        assert [r["record"] for r in json.loads(bobs.getvalue())] == [bob_post["record"]]
    bobs = usage_cli(team.path, "bob", "--json", "--since", "1d")
    assert tools_of(json.loads(bobs)) == {"scout": 1, "draft": 1, "strike": 4, "status": 1}
    alices = usage_cli(team.path, "alice")
    assert "setup" in alices and "strike" in alices
    usage_log = open_usage(team.config)  # each call's principal is a column
    with closing(usage_log.where.open("gwanjong-test")) as db:
        who = {r[0] for r in db.tuples(f"SELECT DISTINCT principal FROM {usage_log.table}")}
    usage_log.close()
    assert {"alice", "bob", "carol"} >= who >= {"alice", "bob"}


async def test_a_dry_run_stays_its_makers_record(forum: FakePlatform, tmp_path: Path) -> None:
    """Two members dry-run the very same post: each keeps a record of their own (one
    member's dry run never takes over another's row)."""
    records: dict[str, list[Any]] = {}
    async with team_gateway(tmp_path, forum, writes="dry-run") as team:
        for user in ("alice", "bob"):
            async with team.client(user) as c:
                oid = await drafted(c)
                done = await call(
                    c, "strike", opportunity_id=oid, action="post", content=BOB_POST, title="Same"
                )
                assert done["status"] == "dry_run", done
        for user in ("alice", "bob"):
            async with team.client(user) as c:
                records[user] = await resource(c, "gwanjong://history")
                own = await resource(c, f"gwanjong://strike/{records[user][0]['record']}")
                assert own["by"] == user and not own["policy"][0].startswith("by="), own
    assert len(records["alice"]) == len(records["bob"]) == 1, records
    assert records["alice"][0]["record"] != records["bob"][0]["record"]
    assert forum.written() == []


async def test_an_author_cool_down_names_no_other_members_record(
    forum: FakePlatform, tmp_path: Path
) -> None:
    """Alice's posted hand-off engages an author; Bob replying to the same author elsewhere is
    refused by the team's cool-down, told it was another member, never which record."""
    async with team_gateway(tmp_path, forum) as team:
        async with team.client("alice") as a:
            handoff_oid = await drafted(a)
            handoff = await call(
                a, "strike", opportunity_id=handoff_oid, action="comment", content=ALICE_REPLY
            )
            assert handoff["status"] == "handoff", handoff
            # posted by hand and proven: only now is the author engaged
            row = await team.gateway.records.run(StrikeStore.get, int(handoff["record"]))
            assert row is not None
            forum.record("write_comment", row.target, body=row.content)
            done = await call(a, "strike", opportunity_id=handoff_oid, action="confirm_handoff")
            assert done["status"] == "posted", done
        async with team.client("bob") as b:
            oid = await drafted(b, "tokio loom testing", "loom")  # the same author's
            refused = await call(b, "strike", opportunity_id=oid, action="comment", content="Hi")
            own = await resource(b, f"gwanjong://strike/{refused['record']}")
    assert refused["status"] == "refused" and "another member of this team" in refused["reason"]
    for shown in (refused["reason"], json.dumps(own)):
        assert f"record {handoff['record']}" not in shown and ALICE_REPLY not in shown
