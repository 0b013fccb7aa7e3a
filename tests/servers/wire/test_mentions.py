"""The inbox (`mentions`) per platform: what the contract suite cannot see, through the
real SDKs over real HTTP to the sandbox."""

from __future__ import annotations

import pytest
from fastmcp import Client

from gwanjong_devto.mentions import unanswered
from gwanjong_sandbox.control import SandboxControl
from tests.mcp import call
from tests.platforms import SPECS

pytestmark = pytest.mark.anyio


async def test_devto_inbox_is_the_unanswered_comments_on_our_articles(
    sandbox: SandboxControl,
) -> None:
    async with Client(SPECS["devto"].build(sandbox.url)) as client:
        posts = (await call(client, "mentions"))["posts"]
    assert [(p["author"], p["tags"]) for p in posts] == [("curious_carl", ["reply"])]
    [post] = posts
    assert post["id"] == sandbox.ids("devto")["my-post"]  # what get_post and a person act on
    assert "/curious_carl/comment/" in post["url"]
    assert "tool list costs in tokens" in post["body"]


def test_devto_unanswered_walks_the_whole_tree() -> None:
    def node(who: str, text: str, *children: dict[str, object]) -> dict[str, object]:
        return {
            "id_code": f"{who}-{len(text)}",
            "user": {"username": who} if who else {},
            "body_html": f"<p>{text}</p>",
            "children": list(children),
        }

    article = {"user": {"username": "me"}}
    roots = [
        node("ann", "first!", node("me", "thanks")),  # answered
        node("bob", "question?", node("cat", "ask @me, not us")),  # bob: reply; cat: mention
        node("me", "an update", node("dan", "nice update")),  # a reply to our comment
        node("", "[deleted]"),  # no author: nothing to answer
    ]
    found = [(n["user"]["username"], why) for n, why in unanswered(article, roots, "me")]  # type: ignore[index]
    assert found == [("bob", "reply"), ("cat", "mention"), ("dan", "reply")]


async def test_x_mentions_hold_mentions_and_replies_not_bare_quotes(
    sandbox: SandboxControl,
) -> None:
    async with Client(SPECS["twitter"].build(sandbox.url)) as client:
        posts = (await call(client, "mentions", limit=100))["posts"]
    ids = {p["id"] for p in posts}
    assert sandbox.ids("twitter")["summons-me"] in ids
    assert sandbox.ids("twitter")["x-quotes-me"] not in ids  # a quote without @us is no mention
    assert {p["tags"][0] for p in posts} == {"mention", "reply"}


async def test_reddit_inbox_points_at_the_thread_and_the_comment(sandbox: SandboxControl) -> None:
    async with Client(SPECS["reddit"].build(sandbox.url)) as client:
        posts = (await call(client, "mentions"))["posts"]
    ids = sandbox.ids("reddit")
    replies = [p for p in posts if p["tags"] == ["reply"]]
    mentions = [p for p in posts if p["tags"] == ["mention"]]
    assert len(replies) == 2 and all(p["id"] == ids["my-post"] for p in replies)
    [mention] = mentions  # a comment naming u/gwanjong_bot in someone else's thread
    assert mention["id"] == ids["llm-agents"] and "u/gwanjong_bot" in mention["body"]
    for p in posts:
        assert p["url"].startswith("https://www.reddit.com/r/") and f"/{p['id']}/" in p["url"]
    assert len({p["url"] for p in posts}) == len(posts)  # one per comment


async def test_bluesky_notifications_name_the_reason(sandbox: SandboxControl) -> None:
    async with Client(SPECS["bluesky"].build(sandbox.url)) as client:
        posts = (await call(client, "mentions", limit=100))["posts"]
    by_id = {p["id"]: p["tags"] for p in posts}
    ids = sandbox.ids("bluesky")
    assert by_id[ids["summons-me"]] == ["mention"]
    assert by_id[ids["gated"]] == ["mention"]
    assert sum(1 for tags in by_id.values() if tags == ["mention"]) == 3  # + a comment naming us
    assert by_id[ids["bsky-quotes-me"]] == ["quote"]  # someone quoting our own post
    assert sum(1 for tags in by_id.values() if tags == ["reply"]) == 2  # the replies to my-post
