"""X's recent search cuts a page from its index hits, then drops the posts it may no longer
show (deleted, or by an author protected since): a page comes back short, even empty, with a
next_token. A search or a reply listing that stopped there was short without `more`, which a
read-back takes for all there is (kit.once.find_written): a lost write of ours on a later page
told absent, and sent again. Real tweepy over HTTP to the sandbox."""

from __future__ import annotations

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from gwanjong_sandbox.twitter.model import PROTECTED
from tests.mcp import call
from tests.platforms import SPECS

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]
SEARCH = "twitter GET /2/tweets/search/recent"


def hidden_then_ours(sandbox: SandboxControl, hidden: int) -> None:
    """``hidden`` posts by an author protected since, newer than one anyone may see."""
    for i in range(hidden):
        words = f"Paged search, paged search: take {i}"
        sandbox.add_post({"key": f"hidden-{i}", "title": words, "author": PROTECTED})
    words = "Paged search, paged search: the one shown"
    sandbox.add_post({"key": "shown", "title": words, "author": "shown_sam", "hours_ago": 2})


async def test_a_search_reads_past_a_page_x_emptied(sandbox: SandboxControl) -> None:
    hidden_then_ours(sandbox, 15)  # 5 asked: pages of 10, the first all hidden
    async with Client(SPECS["twitter"].build(sandbox.url)) as client:
        found = await call(client, "search", query="Paged search", limit=5)
    assert [p["author"] for p in found["posts"]] == ["shown_sam"], found
    assert found["more"] is False


async def test_a_search_left_at_its_page_cap_says_more_may_follow(sandbox: SandboxControl) -> None:
    """Every page emptied, a next_token each time (as a proxy handing the same token forever
    would): the search stops at its cap, and says the one shown may lie beyond."""
    hidden_then_ours(sandbox, 60)
    async with Client(SPECS["twitter"].build(sandbox.url)) as client:
        found = await call(client, "search", query="Paged search", limit=5)
    assert found == {"posts": [], "more": True}, found
    assert sandbox.request_paths()[SEARCH] == 5, "each page is a request, billed and rate limited"


async def test_a_reply_listing_reads_past_pages_x_emptied(sandbox: SandboxControl) -> None:
    """150 replies by an author protected since, newer than the one shown: the conversation's
    first page (100 hits) comes back empty, its next_token given."""
    comments = [{"key": "answer", "author": "shown_sam", "body": "Shown: use SQLite."}]
    comments += [
        {"key": f"gone-{i}", "author": PROTECTED, "body": f"Hidden take {i}", "minutes": 30}
        for i in range(150)
    ]
    thread = {"key": "paged-thread", "title": "SQLite or Redis?", "comments": comments}
    post_id = sandbox.add_post(thread)["twitter"]
    async with Client(SPECS["twitter"].build(sandbox.url)) as client:
        listed = await call(client, "get_comments", post_id=post_id, limit=50)
    assert [c["body"] for c in listed["comments"]] == ["Shown: use SQLite."], listed
    assert listed["more"] is False
