"""Handles (issue 25): scout's ids are server-minted, kept in the strike record, bound to
the principal and to an expiry, so no session or custom header is needed."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client, FastMCP

from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import SOCIAL
from tests.gateway.helpers import gateway_of
from tests.gateway.http_gateway import client, serve_app
from tests.gateway.team_gateway import team_gateway
from tests.mcp import outcome

pytestmark = pytest.mark.anyio
TOPIC = "rust async cancellation"


def gateway(
    tmp_path: Path, forum: FakePlatform, clock: FakeClock | None = None, **settings: Any
) -> FastMCP[Any]:
    times: dict[str, Any] = {"wall": clock.time, "clock": clock} if clock else {}
    return gateway_of(tmp_path, forum, writes="dry-run", settings=settings or None, **times)[1]


async def post(c: Client[Any], handle: str) -> dict[str, Any]:
    """strike a new post on the handle's platform (the fake forum publishes posts)."""
    return await outcome(
        c, "strike", opportunity_id=handle, action="post", title="On cancellation", content="Hi."
    )


async def scouted(c: Client[Any]) -> str:
    found = await outcome(c, "scout", topic=TOPIC, limit=3)
    return str(found["opportunities"][0]["id"])


async def test_each_call_on_its_own_session_works(
    forum: FakePlatform, tmp_path: Path, mode: str
) -> None:
    mcp = gateway(tmp_path, forum)
    async with Client(mcp, mode=mode) as first:  # type: ignore[arg-type]
        handle = await scouted(first)
    assert handle.startswith("devto-") and len(handle) == len("devto-") + 16
    async with Client(mcp, mode=mode) as second:  # type: ignore[arg-type]
        drafted = await outcome(second, "draft", opportunity_id=handle)
        assert drafted["opportunity_id"] == handle and handle in drafted["next"]
    async with Client(mcp, mode=mode) as third:  # type: ignore[arg-type]
        struck = await post(third, handle)
        assert struck["status"] == "dry_run", struck
        status = await outcome(third, "status")
        assert status["state"]["opportunities"]["count"] == 3
        assert status["state"]["contexts"]["count"] == 1
        assert status["tools"]["available"] == ["scout", "draft", "strike"]


async def test_a_restart_keeps_the_workflow_as_draft_saw_it_and_a_digest_not_the_handle(
    forum: FakePlatform, tmp_path: Path
) -> None:
    """draft reads the post anew; what it read, not what scout saw, is kept for strike."""
    async with Client(gateway(tmp_path, forum)) as c:
        found = await outcome(c, "scout", topic=TOPIC, limit=3)
        handle, url = found["opportunities"][0]["id"], found["opportunities"][0]["url"]
        [pid] = [p for p, post in forum.posts.items() if post.url == url]
        forum.posts[pid] = forum.posts[pid].model_copy(update={"author": "renamed_since"})
        drafted = await outcome(c, "draft", opportunity_id=handle)
        assert "renamed_since" in drafted["author"]
    with sqlite3.connect(tmp_path / "gwanjong.db") as db:
        rows = db.execute("SELECT * FROM handles").fetchall()
    assert len(rows) == 3 and sum(1 for r in rows if r[6] is not None) == 1  # one drafted
    assert not any(handle in str(value) for row in rows for value in row)
    assert any(hashlib.sha256(handle.encode()).hexdigest() == row[0] for row in rows)
    async with Client(gateway(tmp_path, forum)) as c:  # a new gateway on the same state
        struck = await post(c, handle)
        assert struck["status"] == "dry_run", struck
    with sqlite3.connect(tmp_path / "gwanjong.db") as db:
        [(author,)] = db.execute("SELECT author FROM strikes").fetchall()
    assert author == "renamed_since"


async def test_a_handle_expires(forum: FakePlatform, tmp_path: Path, clock: FakeClock) -> None:
    async with Client(gateway(tmp_path, forum, clock, handle_ttl_s=600)) as c:
        handle = await scouted(c)
        clock.advance(599)
        assert "opportunity_id" in await outcome(c, "draft", opportunity_id=handle)
        clock.advance(599)  # draft pushed the expiry to 599 + 600
        struck = await post(c, handle)
        assert struck["status"] == "dry_run", struck
        clock.advance(2)
        late = await post(c, handle)
        assert late["error"].startswith("needs_previous_step: "), late
        assert "expired (after 0.166667 h)" in late["error"], late


async def test_another_users_handle_reaches_nothing(forum: FakePlatform, tmp_path: Path) -> None:
    async with (
        team_gateway(tmp_path, forum, writes="dry-run") as team,
        team.client("alice") as alice,
        team.client("bob", "legacy") as bob,
    ):
        handle = await scouted(alice)
        stolen = await outcome(bob, "draft", opportunity_id=handle)
        assert stolen["error"].startswith("needs_previous_step: "), stolen
        assert "not one you scouted" in stolen["error"]
        assert (await outcome(bob, "status"))["state"]["opportunities"]["count"] == 0
        await outcome(alice, "draft", opportunity_id=handle)
        struck = await post(bob, handle)
        assert struck["error"].startswith("needs_previous_step: "), struck
        mine = await post(alice, handle)
        assert mine["status"] == "dry_run", mine


async def test_anonymous_http_needs_no_header_and_a_client_key_only_groups_the_status(
    forum: FakePlatform, tmp_path: Path
) -> None:
    async with serve_app(gateway(tmp_path, forum)) as url:
        async with client(url, None, "auto") as c:  # no session, no header, no sign-in
            handle = await scouted(c)
        async with client(url, None, "auto") as c:
            await outcome(c, "draft", opportunity_id=handle)
            struck = await post(c, handle)
            assert struck["status"] == "dry_run", struck
        one = {"X-Gwanjong-Session": "agent-one-0123456789"}
        two = {"X-Gwanjong-Session": "agent-two-0123456789"}
        async with client(url, None, "auto", one) as a, client(url, None, "auto", two) as b:
            handle = await scouted(a)
            assert (await outcome(a, "status"))["state"]["opportunities"]["count"] == 3
            assert (await outcome(b, "status"))["state"]["opportunities"]["count"] == 0
            # the key groups; it is no wall: the handle is the capability (same principal)
            assert "opportunity_id" in await outcome(b, "draft", opportunity_id=handle)
        bad = {"X-Gwanjong-Session": "short"}
        async with client(url, None, "auto", bad) as c:
            refused = await outcome(c, "scout", topic=TOPIC)
            assert refused["error"].startswith("invalid_input: "), refused  # not unavailable
            assert "16 to 256 printable characters" in refused["error"]


async def test_a_post_one_server_says_is_on_another_platform_stays_on_the_first(
    forum: FakePlatform, tmp_path: Path
) -> None:
    """A handle is for the platform whose server answered: a devto answer that names a
    bluesky post cannot aim draft's reads or strike's write at bluesky."""
    social = FakePlatform(SOCIAL)
    pid = forum.add_post("forged", "Rust async cancellation, again", "Cancellation in rust async?")
    forum.posts[pid] = forum.posts[pid].model_copy(update={"platform": "bluesky"})
    mcp = gateway_of(tmp_path, forum, social, writes="live")[1]
    async with Client(mcp) as c:
        found = await outcome(c, "scout", topic=TOPIC, platforms=["devto"], limit=5)
        [forged] = [o for o in found["opportunities"] if o["url"] == forum.posts[pid].url]
        assert forged["platform"] == "devto" and forged["id"].startswith("devto-"), forged
        await outcome(c, "draft", opportunity_id=forged["id"])
        await post(c, forged["id"])
    assert not set(social.tools) & {"get_post", "get_comments", "write_post"}, social.tools
    assert social.written() == []


async def test_a_post_read_again_under_another_id_keeps_the_scouted_target(
    tmp_path: Path,
) -> None:
    """draft reads the scouted post again (get_post); an answer naming another post's id
    cannot move strike's target off the post the model scouted and drafted."""
    social = FakePlatform(SOCIAL)
    scouted_id = social.add_post("mine", "Rust async cancellation, once more", "Cancel?")
    other = social.add_post("other", "A cat picture", "Nothing about rust.")
    mcp = gateway_of(tmp_path, social, writes="live")[1]
    async with Client(mcp) as c:
        found = await outcome(c, "scout", topic=TOPIC, limit=5)
        url = social.posts[scouted_id].url
        [handle] = [o["id"] for o in found["opportunities"] if o["url"] == url]
        social.posts[scouted_id] = social.posts[scouted_id].model_copy(update={"id": other})
        await outcome(c, "draft", opportunity_id=handle)
        struck = await outcome(c, "strike", opportunity_id=handle, action="upvote", content="")
    assert [w.target for w in social.written()] == [scouted_id], (struck, social.written())


async def test_a_post_on_one_platform_cannot_hide_another_platforms_post_behind_its_url(
    forum: FakePlatform, tmp_path: Path
) -> None:
    """A post's url is the platform's word (a remote Mastodon status names its own): one
    that names another platform's post does not take that post's place in scout."""
    social = FakePlatform(SOCIAL)
    real = forum.add_post("real", "Rust async cancellation, in depth", "Rust async cancellation.")
    fake = social.add_post("fake", "Rust async cancellation, retold", "Rust async cancellation.")
    social.posts[fake] = social.posts[fake].model_copy(update={"url": forum.posts[real].url})
    mcp = gateway_of(tmp_path, social, forum)[1]
    async with Client(mcp) as c:
        found = await outcome(c, "scout", topic=TOPIC, limit=25)
    titles = {(o["platform"], o["title"]) for o in found["opportunities"]}
    assert ("devto", "Rust async cancellation, in depth") in titles, titles
