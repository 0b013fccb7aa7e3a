"""`gwanjong review` on a PostgreSQL record: the same decisions as on SQLite
(tests/gateway/cli/test_review_cli.py), the approval consumed in PostgreSQL's claim
transaction: four approved one by one, two approvers at once, a decline, a hand-off closed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gwanjong_gateway.rules.approvals import ApprovalStatus, Channel
from gwanjong_gateway.rules.ledger import StrikeStatus
from tests.gateway.cli.test_review_cli import (
    FOOTER,
    blocked_then_sent,
    pending_comments,
    two_approvers_at_once,
)
from tests.gateway.review_cli import LOGIN, Bench

pytestmark = [pytest.mark.anyio, pytest.mark.postgres]


async def test_four_approved_from_the_terminal(tmp_path: Path, pg_url: str) -> None:
    bench = Bench(tmp_path, store_url=pg_url)
    async with bench.client() as client:
        ids = await pending_comments(client, 4)
    assert bench.links.writes == []
    assert not (tmp_path / "gwanjong.db").exists()  # the record is PostgreSQL
    listed = json.loads((await bench.review("list", "--json")).out)
    assert [r["id"] for r in listed] == ids
    for approval_id in ids:
        ran = await bench.review("approve", str(approval_id), typed="approve\n")
        assert ran.code == 0, ran
    assert [w.data["body"] for w in bench.links.written("write_comment")] == [
        f"Reply number {i}.{FOOTER}" for i in range(4)
    ]
    for approval_id in ids:
        a = bench.approval(approval_id)
        assert (a.status, a.channel, a.decided_by) == (
            ApprovalStatus.APPROVED,
            Channel.TERMINAL,
            LOGIN,
        )
    again = await bench.review("approve", str(ids[0]), typed="approve\n")
    assert again.code == 1 and "already approved" in again.err
    assert len(bench.links.writes) == 4


async def test_two_approvers_at_once(tmp_path: Path, pg_url: str) -> None:
    bench = Bench(tmp_path, store_url=pg_url)
    async with bench.client() as client:
        [approval_id] = await pending_comments(client, 1)
    await two_approvers_at_once(bench, approval_id)


async def test_decline_then_a_handoff_closed(tmp_path: Path, pg_url: str) -> None:
    bench = Bench(tmp_path, store_url=pg_url)
    async with bench.client() as client:
        [approval_id] = await pending_comments(client, 1)
        scouted = (
            await client.call_tool(
                "scout", {"topic": "rust async", "platforms": ["devto"], "limit": 5}
            )
        ).structured_content
        assert scouted is not None
        oid = scouted["opportunities"][0]["id"]
        await client.call_tool("draft", {"opportunity_id": oid})
        handed = (
            await client.call_tool(
                "strike", {"opportunity_id": oid, "action": "comment", "content": "By hand."}
            )
        ).structured_content
    assert handed is not None and handed["status"] == "handoff"
    assert (await bench.review("decline", f"a{approval_id}")).code == 0
    url = "https://dev.to/gwanjong_bot/comment/7"
    assert (await bench.review("done", f"h{handed['record']}", "--url", url)).code == 0
    rows = {r.id: r for r in bench.rows()}
    assert rows[handed["record"]].status is StrikeStatus.POSTED
    assert rows[handed["record"]].result_url == url
    assert any(r.status is StrikeStatus.DECLINED for r in rows.values())
    assert bench.links.writes == [] and bench.forum.writes == []


async def test_a_blocked_approval_waits_without_rows(tmp_path: Path, pg_url: str) -> None:
    # the hold is read from PostgreSQL's own claim checks, without claiming
    await blocked_then_sent(Bench(tmp_path, store_url=pg_url))
