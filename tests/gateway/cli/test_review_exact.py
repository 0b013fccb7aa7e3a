"""`gwanjong review approve --title --tags` (issue 34, one exact write): the person sees the
whole write they approve (title, tags, text with footer, its SHA-256), tags the platform
refuses are refused with its reason, and the platform receives exactly the approved write.
In-process over the fake forum (Dev.to's tag rules), the same record as the gateway."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_gateway.rules.approvals import ApprovalStatus
from gwanjong_shared.contract.text import graphemes
from tests.fakes.platform import FakePlatform
from tests.gateway.approval_clients import CLUSTERS, COUNTED, pending
from tests.gateway.approval_clients import FOOTER as LINKS_FOOTER
from tests.gateway.review_cli import Bench
from tests.mcp import call

pytestmark = pytest.mark.anyio
FOOTER = "\n\n*Drafted with an AI assistant (fake forum).*"


async def pending_post(client: Client[Any]) -> int:
    scouted = await call(client, "scout", topic="rust async", platforms=["devto"], limit=3)
    oid = scouted["opportunities"][0]["id"]
    await client.call_tool("draft", {"opportunity_id": oid})
    post = {"action": "post", "title": "Draft title", "content": "Notes."}
    answer = await call(client, "strike", opportunity_id=oid, **post)
    assert answer["status"] == "pending_approval", answer
    return int(answer["approval"]["id"])


async def test_approve_with_edited_title_and_tags_sends_exactly_them(
    tmp_path: Path, store_url: str
) -> None:
    """Shown, refused with the platform's reason for its tags, edited with --title and --tags,
    sent exactly, on each record engine (on PostgreSQL the approval keeps its write's
    canonical JSON: the `outgoing` migration)."""
    bench = Bench(tmp_path, store_url=store_url)
    async with bench.client() as client:
        approval_id = await pending_post(client)
    assert (tmp_path / "gwanjong.db").exists() == (not store_url)  # the record is where it says
    shown = (await bench.review("show", str(approval_id))).out
    assert "  | Title: Draft title" in shown and "  | Tags: (none)" in shown
    assert "a new post on devto" in shown and "Drafted from this post" in shown
    assert bench.approval(approval_id).digest in shown
    listed = (await bench.review("list")).out
    assert "| title: Draft title" in listed
    ran = await bench.review("approve", str(approval_id), "--tags", "a,b,c,d,e", typed="approve\n")
    assert ran.code == 1 and "Fake Forum takes at most 4 tags; got 5" in ran.err, ran
    assert bench.forum.writes == []
    assert bench.approval(approval_id).status is ApprovalStatus.PENDING  # edit again
    edit = ["--title", "Cancellation, in practice", "--tags", "rust,async"]
    ran = await bench.review("approve", str(approval_id), *edit, typed="approve\n")
    assert ran.code == 0, ran
    a = bench.approval(approval_id)
    assert "Your edit will be sent instead" in ran.out and a.digest in ran.out
    assert "  | Title: Cancellation, in practice" in ran.out and "  | Tags: rust, async" in ran.out
    [written] = bench.forum.written("write_post")
    assert written.data == {
        "id": written.data["id"],
        "title": "Cancellation, in practice",
        "body": f"Notes.{FOOTER}",
        "tags": ["rust", "async"],
    }
    assert a.status is ApprovalStatus.APPROVED and a.edited and a.tags == ("rust", "async")
    assert "| tags: rust, async" in (await bench.review("list", "--all")).out


async def test_review_show_counts_the_text_as_the_platform_does_and_after_an_edit(
    tmp_path: Path, store_url: str
) -> None:
    """`show` says the platform's count of its limit (graphemes here, not Python's code
    points), as the chain's `validate` answered; after a person's edit is sent, the count
    of the edited text, as the platform counted it then."""
    bench = Bench(tmp_path, links=FakePlatform(COUNTED), store_url=store_url)
    async with bench.client() as client:
        approval_id = int((await pending(client, CLUSTERS)).structured_content["approval"]["id"])
    sent = CLUSTERS + LINKS_FOOTER
    assert graphemes(sent) < len(sent)
    shown = (await bench.review("show", str(approval_id))).out
    assert f"({graphemes(sent)} of 300 graphemes as reddit counts them: that is" in shown, shown
    edited = f"{CLUSTERS} {CLUSTERS}{LINKS_FOOTER}"
    edit = tmp_path / "edit.txt"
    edit.write_text(edited, encoding="utf-8")
    ran = await bench.review(
        "approve", str(approval_id), "--text-file", str(edit), typed="approve\n"
    )
    assert ran.code == 0, ran
    shown = (await bench.review("show", str(approval_id))).out
    assert bench.approval(approval_id).text == edited
    assert f"({graphemes(edited)} of 300 graphemes as reddit counts them: that is" in shown, shown
