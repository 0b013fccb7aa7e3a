"""The contract's tool list and reads, the same for every platform server (the cases:
tests/contract/conftest.py)."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract import CONTRACT_TOOLS, OPTIONAL_TOOLS, READ_TOOLS, WRITE_TOOLS
from gwanjong_shared.contract.models import Comment, Post
from tests.contract.conftest import EACH
from tests.mcp import call, error_of
from tests.platforms import PlatformSpec

pytestmark = pytest.mark.anyio

POST_FIELDS = set(Post.model_fields) - {"raw"}
COMMENT_FIELDS = set(Comment.model_fields) - {"raw"}


# -- the tool list ---------------------------------------------------------------------


async def test_tools_are_exactly_the_contract(client: Client[Any]) -> None:
    tools = {t.name: t for t in await client.list_tools()}
    assert set(tools) == {*CONTRACT_TOOLS, *OPTIONAL_TOOLS}  # our servers serve the inbox too
    expected_args = {
        "mentions": {"since", "limit"},
        "trending": {"limit"},
        "search": {"query", "limit"},
        "get_post": {"post_id"},
        "get_comments": {"post_id", "limit"},
        "write_post": {"title", "body", "tags"},
        "write_comment": {"post_id", "body", "parent_id"},
        "upvote": {"post_id"},
        "capabilities": set(),
        "validate": {"action", "body", "title", "post_id", "tags"},
    }
    for name, tool in tools.items():
        assert set(tool.input_schema.get("properties", {})) == expected_args[name], name
        assert tool.description and "Example" in tool.description, name
        assert tool.annotations is not None
        if name in (*READ_TOOLS, *OPTIONAL_TOOLS):
            assert tool.annotations.read_only_hint is True, name
        if name in WRITE_TOOLS:
            assert tool.annotations.destructive_hint is True, name
            assert tool.annotations.open_world_hint is True, name
    assert set(tools["search"].input_schema["required"]) == {"query"}


# -- reads -------------------------------------------------------------------------------


async def test_trending_returns_posts_in_the_shared_shape(
    client: Client[Any], spec: PlatformSpec
) -> None:
    posts = (await call(client, "trending", limit=5))["posts"]
    assert 1 <= len(posts) <= 5
    for post in posts:
        assert set(post) == POST_FIELDS  # the raw payload never goes over MCP
        assert post["platform"] == spec.name
        assert post["id"] and post["url"].startswith("http")


async def test_search_finds_the_matching_thread_in_english_and_korean(
    client: Client[Any], spec: PlatformSpec, ids: dict[str, str]
) -> None:
    posts = (await call(client, "search", query=spec.search_word, limit=10))["posts"]
    assert ids["rust-async"] in [p["id"] for p in posts]
    assert all(set(p) == POST_FIELDS for p in posts)
    posts = (await call(client, "search", query="비동기", limit=10))["posts"]
    assert ids["korean-dev"] in [p["id"] for p in posts]


async def test_get_post_has_the_full_body_with_emoji_and_korean(
    client: Client[Any], ids: dict[str, str]
) -> None:
    post = await call(client, "get_post", post_id=ids["rust-async"])
    assert post["id"] == ids["rust-async"]
    assert "select!" in post["body"] and "cancellation-safe" in post["body"]
    assert post["author"] and post["published_at"]
    korean = await call(client, "get_post", post_id=ids["korean-dev"])
    assert "세마포어" in korean["body"]
    emoji = await call(client, "get_post", post_id=ids["emoji-post"])
    assert "🔥" in emoji["body"] + emoji["title"]


@pytest.mark.parametrize("key", ["deleted-post", "missing"])
async def test_a_gone_post_is_not_found_with_its_id(
    client: Client[Any], spec: PlatformSpec, sandbox: SandboxControl, ids: dict[str, str], key: str
) -> None:
    for tool in ("get_post", "get_comments"):
        text = await error_of(client, tool, post_id=ids[key])
        assert text.startswith("not_found: ") and ids[key] in text, (tool, text)
    # a comment on it: not found, unless the rule refuses any program comment first
    text = await error_of(client, "write_comment", post_id=ids[key], body="Hello?")
    by_rule = spec.rules["write_comment"] in ("human", "never")
    assert text.startswith("not_supported: " if by_rule else "not_found: "), text
    assert sandbox.writes(spec.name) == []


@EACH
async def test_an_id_in_no_form_of_the_platform_is_refused_unsent(
    spec: PlatformSpec, sandbox: SandboxControl
) -> None:
    async with Client(spec.build(sandbox.url)) as client:
        await call(client, "capabilities")  # signed in first, where the platform signs in
        sent = sandbox.requests().get(spec.name, 0)
        for post_id in ("not a post id!", "\u0661\u0660\u0660\u0661"):  # 1001 in Arabic digits
            text = await error_of(client, "get_post", post_id=post_id)
            assert text.startswith("invalid_input: "), text
        assert sandbox.requests().get(spec.name, 0) == sent


def parents_first(comments: list[dict[str, Any]]) -> dict[str, int]:
    """Each comment's depth by id, checking that a reply comes after its parent."""
    seen: dict[str, int] = {}
    for c in comments:
        if c["parent_id"] is None:
            assert c["depth"] == 0
        else:
            assert c["parent_id"] in seen, "a reply must come after its parent"
            assert c["depth"] == seen[c["parent_id"]] + 1
        seen[c["id"]] = c["depth"]
    return seen


async def test_comments_are_flattened_with_parent_and_depth(
    client: Client[Any], ids: dict[str, str], spec: PlatformSpec
) -> None:
    comments = (await call(client, "get_comments", post_id=ids["mcp-servers"]))["comments"]
    assert len(comments) == 6
    for c in comments:
        assert set(c) == COMMENT_FIELDS
        assert c["platform"] == spec.name and c["post_id"] == ids["mcp-servers"]
    assert max(parents_first(comments).values()) == 2
    assert any("stdout" in c["body"] for c in comments)


async def test_empty_thread_has_no_comments(client: Client[Any], ids: dict[str, str]) -> None:
    assert (await call(client, "get_comments", post_id=ids["empty-thread"]))["comments"] == []


async def test_deleted_comment_keeps_its_replies(client: Client[Any], ids: dict[str, str]) -> None:
    comments = (await call(client, "get_comments", post_id=ids["deleted-comments"]))["comments"]
    assert len(comments) == 3
    reply = next(c for c in comments if "civil" in c["body"])
    parent = comments[comments.index(reply) - 1]  # in its place, right before its reply
    assert parent["id"] == reply["parent_id"] and parent["depth"] == 0
    assert parent["author"] == ""  # not the troll's name: the platform took it down
    assert reply["depth"] == 1 and reply["author"]


async def test_huge_thread(
    spec: PlatformSpec, overrides: dict[str, str], sandbox: SandboxControl, ids: dict[str, str]
) -> None:
    # 500 comments are 500 reads on Hacker News (Firebase has no batch read): the server's
    # bound, not the machine's speed, is what a loaded machine would otherwise test.
    async with Client(spec.build(sandbox.url, **overrides | spec.timeouts(60))) as client:
        everything = await call(client, "get_comments", post_id=ids["huge"], limit=1000)
        # past the first page where a platform pages (X: 100 a page)
        first = (await call(client, "get_comments", post_id=ids["huge"], limit=150))["comments"]
    everything = everything["comments"]
    assert len(everything) == 500
    assert len({c["id"] for c in everything}) == 500
    assert max(parents_first(everything).values()) >= 4
    assert len(first) == 150
    parents_first(first)


# -- mentions (the inbox) ---------------------------------------------------------------

REASONS = {"mention", "reply", "quote"}


async def test_mentions_lists_who_asked_for_us(client: Client[Any], spec: PlatformSpec) -> None:
    account = (await call(client, "capabilities"))["account"]
    inbox = await call(client, "mentions")
    assert set(inbox) == {"posts", "next_since", "more"} and inbox["next_since"]
    posts = inbox["posts"]
    assert posts
    for post in posts:
        assert set(post) == POST_FIELDS and post["platform"] == spec.name
        assert len(post["tags"]) == 1 and post["tags"][0] in REASONS
        assert post["author"] and account not in post["author"]  # never our own posts
        assert post["url"].startswith("http")
    # Every platform's corpus has a reply to our own post ("my-post").
    assert any("tool list costs in tokens" in p["body"] for p in posts)
    dates = [p["published_at"] for p in posts]
    assert dates == sorted(dates)  # the oldest unseen first
    for post in posts:  # its ids are what get_post takes
        assert (await call(client, "get_post", post_id=post["id"]))["id"] == post["id"]
    # the cursor shows only what is new
    again = await call(client, "mentions", since=inbox["next_since"])
    assert again["posts"] == [] and again["next_since"] == inbox["next_since"]
    # a limit keeps the oldest, and the rest come next
    one = await call(client, "mentions", limit=1)
    assert one["posts"] == posts[:1] and one["more"] == (len(posts) > 1)
    rest = await call(client, "mentions", since=one["next_since"])
    assert rest["posts"] == posts[1:]  # nothing cut falls behind the cursor


async def test_mentions_errors_have_kinds(
    client: Client[Any], sandbox: SandboxControl, spec: PlatformSpec
) -> None:
    sandbox.fault(spec.name, status=503, count=20)
    assert (await error_of(client, "mentions")).startswith("unavailable: ")
