"""Dev.to specifics the contract suite cannot see, through httpx over real HTTP."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastmcp import Client, FastMCP

from gwanjong_devto.adapter import DevtoAdapter
from gwanjong_devto.server import build_server
from gwanjong_sandbox.control import SandboxControl
from gwanjong_sandbox.devto import ME
from gwanjong_shared.kit.once import HOLD_S
from gwanjong_shared.kit.server import build_platform_server
from tests.fakes.clock import FakeClock
from tests.mcp import call, error_of
from tests.platforms import SPECS

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py
SPEC = SPECS["devto"]


async def test_tags_are_read_from_both_forem_forms(sandbox: SandboxControl) -> None:
    # The index form has tag_list as a list; the show form swaps tag_list and tags.
    async with Client(SPEC.build(sandbox.url)) as client:
        listed = await call(client, "search", query="rust")
        shown = await call(client, "get_post", post_id=sandbox.ids("devto")["rust-async"])
    from_index = next(p for p in listed["posts"] if p["id"] == shown["id"])
    assert from_index["tags"] == shown["tags"] == ["rust", "async", "tokio"]


async def test_tags_as_a_string_and_forem_tag_rules(sandbox: SandboxControl) -> None:
    async with Client(SPEC.build(sandbox.url)) as client:
        ok = await call(client, "write_post", title="Tags", body="b", tags="python, packaging")
        assert ok["ok"] is True
        caps = await call(client, "capabilities")
        bad = await error_of(client, "write_post", title="Tags", body="b", tags=list("abcde"))
        assert bad.startswith("invalid_input: ") and "at most 4 tags" in bad
    [write] = sandbox.writes("devto")
    assert write["data"]["tags"] == ["python", "packaging"]
    assert write["data"]["ai_disclosure_level"] == "fully_autonomous"  # dev.to's llms.txt
    assert caps["sent_with"] == {"ai_disclosure_level": "fully_autonomous"}  # a person sees it


@pytest.mark.parametrize(
    "body", ["---\ntitle: Not this\npublished: false\n---\nText", "\n ---\r\ntags: ad\r\n---"]
)
async def test_front_matter_that_replaces_the_approved_fields_is_refused(
    sandbox: SandboxControl, body: str
) -> None:
    # Forem takes a body's opening '---' block as the article's title, tags and published.
    async with Client(SPEC.build(sandbox.url)) as client:
        check = await call(client, "validate", action="write_post", title="Approved", body=body)
        text = await error_of(client, "write_post", title="Approved", body=body)
        rule = await call(client, "write_post", title="A rule", body="Intro\n\n---\n\nMore")
    assert not check["ok"] and "front matter" in check["problems"][-1]
    assert text.startswith("invalid_input: ") and "front matter" in text
    assert [w["data"]["title"] for w in sandbox.writes("devto")] == ["A rule"] and rule["ok"]


async def test_a_lost_post_is_read_back_where_forem_has_no_search(
    sandbox: SandboxControl,
) -> None:
    # The gateway reads an unsure post back by searching its title. A Forem without DEV's
    # /api/articles/search answers 404, and a one-word title reads a tag's articles only.
    async with Client(SPEC.build(sandbox.url)) as client:
        sandbox.fault("devto", "apply_then_status", status=502, method="POST", match="/api/")
        lost = await error_of(client, "write_post", title="Rust", body="Sent once.")
        sandbox.fault("devto", status=404, match="/api/articles/search")
        found = (await call(client, "search", query="Rust", limit=50))["posts"]
    (write,) = sandbox.writes("devto")
    assert "may have been written" in lost and str(write["data"]["id"]) in [p["id"] for p in found]


async def test_a_lost_post_is_read_back_past_our_drafts(sandbox: SandboxControl) -> None:
    """Forem's /api/articles/me/all lists drafts first (published_at DESC puts their NULL
    first), 30 a page: with 30 drafts our new article was on page 2, unread. Where search did
    not find it either (a Forem without DEV's route), the read-back past the hold told it
    absent and sent it again: two articles."""
    for i in range(30):
        sandbox.add_post({"key": f"draft-{i}", "title": f"Draft {i}", "author": ME, "draft": True})
    clock, write = FakeClock(wall=time.time()), {"title": "Rust", "body": "Sent once."}
    server = build_platform_server(DevtoAdapter(SPEC.settings(sandbox.url)), wall=clock.time)
    async with Client(server) as client:
        sandbox.fault("devto", "apply_then_status", status=502, method="POST", match="/api/")
        await error_of(client, "write_post", **write)
        sandbox.fault("devto", status=404, match="/api/articles/search")
        clock.advance(HOLD_S)
        again = await call(client, "write_post", **write)
    posts = [w["data"]["id"] for w in sandbox.writes("devto")]
    assert posts == [again["id"]], f"the write was sent {len(posts)} times"


def paced(sandbox: SandboxControl, clock: FakeClock, **overrides: str) -> FastMCP[Any]:
    """The Dev.to server pacing on ``clock``: its waits advance the clock, not the test."""
    return build_server(SPEC.settings(sandbox.url, **overrides), clock=clock, sleep=clock.sleep)


async def test_writes_are_paced_to_one_per_second(sandbox: SandboxControl) -> None:
    # Forem throttles writes at 1/s per key; the server waits instead of earning a 429.
    # The sandbox enforces that on its own (real) clock, so this server paces on real time
    # too: what proves the pacing is that no write is refused, not how long it took.
    async with Client(SPEC.build(sandbox.url)) as client:
        for i in range(3):
            assert (await call(client, "write_post", title=f"Paced {i}", body="b"))["ok"]
    assert len(sandbox.writes("devto")) == 3


async def test_reads_are_paced_by_the_token_bucket(sandbox: SandboxControl) -> None:
    within = FakeClock()
    async with Client(paced(sandbox, within, DEVTO_READS_PER_MINUTE="120")) as client:
        for _ in range(3):  # 2/s, burst 120
            await client.call_tool("trending", {"limit": 1})
    assert within.slept == []  # within the burst: no wait
    over = FakeClock()
    async with Client(paced(sandbox, over, DEVTO_READS_PER_MINUTE="1")) as client:  # burst 1
        await client.call_tool("trending", {"limit": 1})
        assert over.slept == []
        await client.call_tool("trending", {"limit": 1})
    assert over.slept == [pytest.approx(60.0)]  # the second read waited a minute for a token


async def test_forem_validation_errors_are_invalid_input(sandbox: SandboxControl) -> None:
    sandbox.fault("devto", status=422, match="/api/articles", count=1)
    async with Client(SPEC.build(sandbox.url)) as client:
        text = await error_of(client, "write_post", title="T", body="b")
    assert text.startswith("invalid_input: ")


async def test_ids_are_numbers_a_json_number_too(sandbox: SandboxControl) -> None:
    post_id = sandbox.ids("devto")["rust-async"]
    async with Client(SPEC.build(sandbox.url)) as client:
        assert (await call(client, "get_post", post_id=int(post_id)))["id"] == post_id
        text = await error_of(client, "get_post", post_id="rust-for-pythonistas")  # a slug
    assert text.startswith("invalid_input: ") and "numbers" in text


async def test_without_a_key_reads_work_and_writes_say_how_to_fix(sandbox: SandboxControl) -> None:
    async with Client(SPEC.build(sandbox.url, DEVTO_API_KEY="")) as client:
        caps = await call(client, "capabilities")
        assert caps["configured"] is False and caps["account"] is None
        assert (await call(client, "trending", limit=2))["posts"]
        text = await error_of(client, "write_post", title="T", body="b")
    assert "DEVTO_API_KEY" in text


async def test_comments_link_to_their_page(sandbox: SandboxControl) -> None:
    """A comment read back carries its link (issue 38: a write settled by reading back keeps
    the URL found); Dev.to takes no comment writes, so its own: `<instance>/<user>/comment/<id>`."""
    async with Client(SPEC.build(sandbox.url)) as client:
        comments = await call(client, "get_comments", post_id=sandbox.ids("devto")["rust-async"])
    signed = [c for c in comments["comments"] if c["author"]]
    assert signed, comments
    base = SPEC.settings(sandbox.url).base_url.rstrip("/")
    for c in signed:
        assert c["url"] == f"{base}/{c['author']}/comment/{c['id']}", c


# -- the inbox -----------------------------------------------------------------------------


async def test_inbox_is_the_unanswered_comments_on_our_articles(sandbox: SandboxControl) -> None:
    async with Client(SPEC.build(sandbox.url)) as client:
        posts = (await call(client, "mentions"))["posts"]
    assert [(p["author"], p["tags"]) for p in posts] == [("curious_carl", ["reply"])]
    [post] = posts
    assert post["id"] == sandbox.ids("devto")["my-post"]  # what get_post and a person act on
    assert "/curious_carl/comment/" in post["url"]
    assert "tool list costs in tokens" in post["body"]
