"""Hacker News specifics the contract suite cannot see, over real HTTP to the sandbox: both
search orders, the front page and the comment tree past HN's dead, deleted and missing
items, the inbox without what we answered, and every write refused with HN's
guideline, by the server and through the gateway, with nothing sent and nothing to paste."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_hackernews.profile import GUIDELINE
from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import in_memory_gateway, opportunity_for
from tests.mcp import call, error_of, outcome
from tests.platforms import SPECS
from tests.servers.inbox import paths

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py
SPEC = SPECS["hackernews"]


# -- search and the front page ---------------------------------------------------------


async def test_search_by_relevance_and_by_date(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("hackernews")
    async with Client(SPEC.build(sandbox.url)) as client:
        relevant = (await call(client, "search", query="cancellation", limit=10))["posts"]
    async with Client(SPEC.build(sandbox.url, HACKERNEWS_SEARCH_ORDER="date")) as client:
        recent = (await call(client, "search", query="cancellation", limit=10))["posts"]
    assert relevant[0]["id"] == ids["rust-async"]  # the title matches: most relevant
    assert {p["id"] for p in relevant} == {p["id"] for p in recent}
    dates = [p["published_at"] for p in recent]
    assert dates == sorted(dates, reverse=True) and dates != [p["published_at"] for p in relevant]
    comments = [p for p in relevant if p["tags"] == ["comment"]]
    assert comments and all(p["title"] for p in comments)  # a comment hit names its story
    seen = paths(sandbox, "hackernews")
    assert seen.get("GET /api/v1/search") == 1 and seen.get("GET /api/v1/search_by_date") == 1


async def test_search_skips_what_hn_hides(sandbox: SandboxControl) -> None:
    async with Client(SPEC.build(sandbox.url)) as client:
        dead = (await call(client, "search", query="followers", limit=10))["posts"]
        live = (await call(client, "search", query="civil", limit=10))["posts"]
    assert dead == []  # the dead (flagged) comment is not indexed
    assert [p["body"] for p in live] == ["Please keep it civil."]


async def test_trending_is_the_front_page_without_gone_items(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("hackernews")
    async with Client(SPEC.build(sandbox.url)) as client:
        posts = (await call(client, "trending", limit=5))["posts"]
    listed = [p["id"] for p in posts]
    assert len(listed) == 5 and ids["deleted-post"] not in listed and ids["missing"] not in listed
    likes = [p["likes"] for p in posts]
    assert likes == sorted(likes, reverse=True)  # rank order kept past the skipped ones
    seen = paths(sandbox, "hackernews")
    # the deleted and the missing item were read (they sit at ranks 3 and 4), then skipped
    assert seen.get(f"GET /v0/item/{ids['deleted-post']}.json") == 1
    assert seen.get(f"GET /v0/item/{ids['missing']}.json") == 1


@pytest.mark.parametrize("post_id", ["\u00b2", "8863\u00b3", "\u0668\u0668\u0666\u0663"])
async def test_an_id_of_other_digits_is_invalid_input(
    sandbox: SandboxControl, post_id: str
) -> None:
    """HN ids are ASCII numbers: a superscript or another script's digits is the caller's
    mistake (invalid_input), never read as some other item nor a failure to try again."""
    async with Client(SPEC.build(sandbox.url)) as client:
        texts = [
            await error_of(client, "get_post", post_id=post_id),
            await error_of(client, "get_comments", post_id=post_id),
        ]
    for text in texts:
        assert text.startswith("invalid_input: ") and "numbers" in text, text
    assert sandbox.requests().get("hackernews", 0) == 0


# -- the comment tree ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "fault", "kind"),
    [
        ("trending", {"status": 429}, "rate_limited"),
        ("get_comments", {"status": 502, "body": "<html>Bad Gateway</html>"}, "unavailable"),
        ("mentions", {"kind": "hang", "seconds": 3}, "timeout"),
        ("trending", {"status": 401, "body": '{"error": "Permission denied"}'}, "auth"),
    ],
)
async def test_a_failed_item_read_keeps_its_kind(
    sandbox: SandboxControl, tool: str, fault: dict[str, Any], kind: str
) -> None:
    """Items are read many at once: one refused or late read fails the call with its own
    kind, not as an ExceptionGroup to 'try again' at once."""
    ids = sandbox.ids("hackernews")
    args = {"get_comments": {"post_id": ids["deleted-comments"]}}.get(tool, {})
    async with Client(SPEC.build(sandbox.url, HACKERNEWS_TIMEOUT_S="1")) as client:
        sandbox.fault("hackernews", match=f"/v0/item/{ids['del-1'] if args else ''}", **fault)
        text = await error_of(client, tool, **args)
    assert text.startswith(kind) and "Group" not in text and "API key" not in text, text


async def test_tree_skips_dead_deleted_and_missing_replies(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("hackernews")
    async with Client(SPEC.build(sandbox.url)) as client:
        comments = (await call(client, "get_comments", post_id=ids["deleted-comments"]))["comments"]
    listed = {c["id"] for c in comments}
    for gone in ("hn-dead", "hn-deleted-leaf", "hn-missing"):
        assert ids[gone] not in listed, gone
    assert not any("followers" in c["body"] for c in comments)  # the dead reply's text
    # the deleted comment with a live reply keeps its place, empty, as HN shows "[deleted]"
    # (its place and its reply's: the contract's test_deleted_comment_keeps_its_replies)
    holder = next(c for c in comments if c["id"] == ids["del-1"])
    assert holder["body"] == ""
    assert next(c for c in comments if c["id"] == ids["del-1-1"])["parent_id"] == ids["del-1"]
    # every reply was asked for, the missing one too: skipped on what HN answered
    assert paths(sandbox, "hackernews").get(f"GET /v0/item/{ids['hn-missing']}.json") == 1


async def test_tree_text_is_text(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("hackernews")
    async with Client(SPEC.build(sandbox.url)) as client:
        post = await call(client, "get_post", post_id=ids["mcp-servers"])
    # HN stores "'failed'" as &#x27;failed&#x27;
    assert "'failed'" in post["body"] and "&#x27;" not in post["body"]


async def test_a_deep_tree_is_read_level_by_level_up_to_the_limit(
    sandbox: SandboxControl,
) -> None:
    ids = sandbox.ids("hackernews")
    async with Client(SPEC.build(sandbox.url, HACKERNEWS_CONCURRENCY="4")) as client:
        first = (await call(client, "get_comments", post_id=ids["huge"], limit=20))["comments"]
    reads = sum(v for k, v in paths(sandbox, "hackernews").items() if k.startswith("GET /v0/item/"))
    assert len(first) == 20
    assert reads < 200  # not the whole 500-comment tree for 20 comments


# -- the inbox -----------------------------------------------------------------------------


async def test_inbox_leaves_out_what_we_answered(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("hackernews")
    async with Client(SPEC.build(sandbox.url)) as client:
        posts = (await call(client, "mentions"))["posts"]
    listed = {p["id"] for p in posts}
    assert ids["my-1"] in listed  # a reply to our story
    assert ids["my-2"] not in listed  # answered by our own my-2-1


# -- writes: never ---------------------------------------------------------------------------


async def test_every_write_is_refused_with_the_guideline_and_nothing_sent(
    sandbox: SandboxControl,
) -> None:
    post_id = sandbox.ids("hackernews")["summons-me"]
    async with Client(SPEC.build(sandbox.url)) as client:
        caps = await call(client, "capabilities")
        sent = sandbox.requests().get("hackernews", 0)
        texts = [
            await error_of(client, "write_comment", post_id=post_id, body="Nice post."),
            await error_of(client, "write_post", title="Show HN: x", body="y"),
            await error_of(client, "upvote", post_id=post_id),
        ]
        check = await call(client, "validate", action="write_comment", body="Hi", post_id=post_id)
        assert sandbox.requests().get("hackernews", 0) == sent  # not one request
    for text in texts:
        assert text.startswith("not_supported: ") and GUIDELINE in text and "own words" in text
    assert check["allowed"] == "never" and check["ok"] is False
    assert check["problems"] == [caps["actions"]["write_comment"]["reason"]]
    assert caps["profile"]["disclosure"] == ""
    assert any(GUIDELINE in line for line in caps["profile"]["writing_guide"])


async def test_through_the_gateway_draft_reads_and_strike_refuses(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    async with Client(in_memory_gateway(sandbox, tmp_path, ["hackernews"])) as client:
        scouted = await call(
            client, "scout", topic="rust async cancellation", platforms=["hackernews"], limit=10
        )
        oid = opportunity_for(scouted, "hackernews", "Rust async")
        drafted = await call(client, "draft", opportunity_id=oid)
        refused = await outcome(
            client, "strike", opportunity_id=oid, action="comment", content="Guards fixed it."
        )
    assert "select!" in drafted["post"]  # the context is there to read
    assert drafted["strike"]["actions"]["comment"]["allowed"] == "never"
    assert any(GUIDELINE in line for line in drafted["guide"])
    assert refused["status"] == "refused", refused
    assert GUIDELINE in refused["reason"] and "own words" in refused["reason"]
    # refused, not handed off: no text for a person to paste
    assert "Guards fixed it" not in str(refused)
    assert sandbox.writes("hackernews") == []
