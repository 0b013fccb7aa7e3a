"""Hand-offs addressed by record, and the author cool-down counting only what engages an
author: the gateway over MCP, on the fake forum (comments and likes are hand-offs there,
posts are written).

Issue 21: after a comment hand-off and an upvote hand-off on one opportunity, confirming
with the comment's URL marked the upvote posted, and the comment could never be closed.
Since issue 34 a confirm closes a hand-off only with proof (our comment found on the post):
each test posts that comment on the fake forum first, as the person would by hand.
"""

from __future__ import annotations

import io
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_gateway.cli.history import print_history
from gwanjong_gateway.config import parse
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import Strike, StrikeStatus
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import FORUM
from tests.gateway.helpers import config_text
from tests.gateway.rows import history
from tests.gateway.strike.test_strike import drafted
from tests.mcp import outcome

pytestmark = pytest.mark.anyio
COMMENT = "Structured concurrency would help here."


async def call(client: Client[Any], oid: str, action: str, **more: Any) -> dict[str, Any]:
    return await outcome(client, "strike", opportunity_id=oid, action=action, **more)


async def two_handoffs(client: Client[Any]) -> tuple[str, int, int]:
    """A comment hand-off, then an upvote hand-off, on one opportunity: (id, records)."""
    oid = await drafted(client)
    comment = await call(client, oid, "comment", content=COMMENT)
    upvote = await call(client, oid, "upvote")
    assert comment["status"] == upvote["status"] == "handoff", (comment, upvote)
    assert f"handoff={comment['record']}" in comment["next"], comment
    assert f"handoff={upvote['record']}" in upvote["next"], upvote
    return oid, int(comment["record"]), int(upvote["record"])


def rows_by_id(state_dir: Path) -> dict[int, Strike]:
    return {r.id: r for r in history(state_dir)}


def by_hand(forum: FakePlatform, state_dir: Path, record: int) -> str:
    """Our account posts hand-off ``record``'s text on its post: the comment's link."""
    row = rows_by_id(state_dir)[record]
    return str(forum.record("write_comment", row.target, body=row.content).url)


@pytest.mark.parametrize("by", ["action", "record"])
async def test_each_handoff_is_confirmed_by_name_and_only_that_one(
    forum: FakePlatform, tmp_path: Path, by: str
) -> None:
    async with Client(fake_gateway(tmp_path, forum)) as client:
        oid, comment, upvote = await two_handoffs(client)
        assert comment == 1  # the record the issue could never close
        name: dict[str, Any] = {"comment": "comment", "upvote": "upvote"}
        if by == "record":
            name = {"comment": comment, "upvote": upvote}
        url = by_hand(forum, tmp_path, comment)
        done = await call(client, oid, "confirm_handoff", handoff=name["comment"], content=url)
        assert done["status"] == "posted" and done["record"] == comment, done
        assert done["action"] == "comment" and done["url"] == url
        rows = rows_by_id(tmp_path)
        assert rows[comment].status is StrikeStatus.POSTED and rows[comment].approver == "human"
        assert rows[comment].result_url == url
        assert rows[upvote].status is StrikeStatus.HANDOFF and rows[upvote].result_url == ""
        # an upvote cannot be read back: the model's word leaves it the person's
        voted = await call(client, oid, "confirm_handoff", handoff=name["upvote"])
        assert voted["status"] == "handoff" and voted["record"] == upvote, voted
    rows = rows_by_id(tmp_path)
    assert rows[upvote].status is StrikeStatus.HANDOFF and rows[upvote].claimed_at
    assert rows[comment].result_url == url
    assert [w.action for w in forum.writes] == ["write_comment"]  # ours, by hand


async def test_an_unnamed_confirm_of_two_handoffs_is_refused_with_the_choices(
    forum: FakePlatform, tmp_path: Path
) -> None:
    async with Client(fake_gateway(tmp_path, forum)) as client:
        oid, comment, upvote = await two_handoffs(client)
        got = await call(client, oid, "confirm_handoff", content="https://dev.to/x/1")
        assert got["status"] == "refused", got
        listed = f"hand-off h{comment} (handoff={comment}, comment), h{upvote}"
        assert listed.replace(", h", ", hand-off h") in got["reason"], got
        assert "handoff=<record>" in got["reason"] and "nothing was recorded" in got["reason"]
        choices = {c["record"]: c for c in got["choices"]}
        assert set(choices) == {comment, upvote}
        assert choices[comment]["action"] == "comment"
        assert choices[comment]["text"].startswith(COMMENT)
        assert choices[upvote]["action"] == "upvote" and "text" not in choices[upvote]
        assert choices[upvote]["open"].startswith("https://dev.to/ferris_fan/")
        rows = rows_by_id(tmp_path)
        assert {rows[comment].status, rows[upvote].status} == {StrikeStatus.HANDOFF}
        # once one is closed, the other is the only one: no name needed
        with closing(StrikeStore(tmp_path / "gwanjong.db")) as store:  # a person dismissed it
            assert store.close_handoff(upvote, StrikeStatus.DISMISSED, 1.0) is not None
        url = by_hand(forum, tmp_path, comment)
        last = await call(client, oid, "confirm_handoff", content=url)
        assert last["status"] == "posted" and last["record"] == comment, last


async def test_a_confirm_that_names_no_pending_handoff_says_what_to_call(
    forum: FakePlatform, tmp_path: Path
) -> None:
    async with Client(fake_gateway(tmp_path, forum)) as client:
        oid = await drafted(client)
        comment = (await call(client, oid, "comment", content=COMMENT))["record"]
        unknown = await call(client, oid, "confirm_handoff", handoff=999)
        assert unknown["error"].startswith("invalid_input: There is no hand-off h999."), unknown
        assert f"Pending here: hand-off h{comment} (handoff={comment}, comment)" in unknown["error"]
        assert f"handoff={comment}" in unknown["error"]
        none = await call(client, oid, "confirm_handoff", handoff="upvote")
        assert "There is no pending upvote hand-off" in none["error"], none
        misplaced = await call(client, oid, "comment", content="Hi.", handoff=comment)
        assert misplaced["error"].startswith("invalid_input: handoff names the hand-off"), misplaced
        other = await drafted(client, "tokio loom testing", "loom")
        foreign = await call(client, other, "confirm_handoff", handoff=comment)
        assert f"Record {comment} is not a hand-off of {other}" in foreign["error"], foreign
        assert "strike with action='comment' (or 'post') first" in foreign["error"]
        url = by_hand(forum, tmp_path, comment)
        done = await call(client, oid, "confirm_handoff", handoff=comment, content=url)
        assert done["status"] == "posted", done
        twice = await call(client, oid, "confirm_handoff", handoff=comment, content="https://x")
        assert twice["status"] == "duplicate" and url in twice["reason"], twice
        assert twice["earlier"]["record"] == comment
    assert rows_by_id(tmp_path)[comment].result_url == url


async def test_history_shows_a_handoffs_text(forum: FakePlatform, tmp_path: Path) -> None:
    async with Client(fake_gateway(tmp_path, forum)) as client:
        oid = await drafted(client)
        long = (
            COMMENT + " " + "Cancel scopes make the edges explicit. " * 6 + "\n\nSecond paragraph."
        )
        record = (await call(client, oid, "comment", content=long))["record"]
    out = io.StringIO()
    config = parse(config_text(tmp_path, []))
    assert print_history(config, None, None, 10, as_json=False, out=out) == 0
    text = out.getvalue()
    lines = text.splitlines()
    assert "to post by hand:" in text and f"review done h{record}" in text, text
    assert any(line.startswith("        Structured concurrency would help here.") for line in lines)
    assert "        Second paragraph." in lines, text
    assert all(len(line) <= 80 for line in lines[2:]), text


# -- the author cool-down: what engages an author, not a new post ---------------------------


async def test_a_post_after_a_comment_to_the_same_author_is_not_cooled_down(
    forum: FakePlatform, tmp_path: Path
) -> None:
    async with Client(fake_gateway(tmp_path, forum)) as client:
        oid = await drafted(client)
        commented = await call(client, oid, "comment", content=COMMENT)
        assert commented["status"] == "handoff", commented
        assert commented["open"].startswith("https://dev.to/ferris_fan/")
        assert FORUM.reason("write_comment") in commented["reason"]
        again = await call(client, oid, "comment", content="Something else entirely.")
        assert again["status"] == "duplicate", again  # the hand-off holds its target
        posted = await call(
            client, oid, "post", content="What we learned about cancellation.", title="Cancel"
        )
        assert posted["status"] == "posted", posted
        upvoted = await call(client, oid, "upvote")
        assert upvoted["status"] == "handoff", upvoted  # an upvote is not cooled down either
        assert FORUM.reason("upvote") in upvoted["reason"]
    assert [w.action for w in forum.writes] == ["write_post"]
