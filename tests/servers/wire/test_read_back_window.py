"""A read-back sees only so much: a server's hold (kit/hold.py) reads an unsure write back
through its real SDK over HTTP to the sandbox, and where the platform holds more than it
read (a search whose results are all others' posts with the same words), our write may lie
beyond: it must not be told absent, which sends it a second time (kit/once.py)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastmcp import Client

from gwanjong_bluesky.adapter import BlueskyAdapter
from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.kit.once import HOLD_S, READ_POSTS
from gwanjong_shared.kit.server import build_platform_server
from tests.fakes.clock import FakeClock
from tests.mcp import call, error_of
from tests.platforms import SPECS
from tests.servers.wire.test_write_once import WRITE_PATH

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]


@pytest.mark.parametrize("crowd", [False, True], ids=["alone", "beyond-a-full-search"])
async def test_a_lost_bluesky_post_is_read_from_our_repo_while_the_appview_lags(
    sandbox: SandboxControl, crowd: bool
) -> None:
    """The AppView (search, our author feed) lists a new post late, minutes in a backlog;
    our repo on the PDS holds it once written. Read back through the AppView alone, a lost
    post not listed yet past the hold was told absent and posted a second time; or, with
    others' posts repeating its words filling the 50 search results read ("top" ranks them
    above ours), refused as unsure for a person. Our repo lists it first: found."""
    for i in range(READ_POSTS + 5 if crowd else 0):
        words = f"Readback window, readback window: take {i}"
        sandbox.add_post({"key": f"crowd-{i}", "title": words, "author": f"crowd_{i}"})
    sandbox.fault("bluesky", kind="lag", seconds=600)
    clock, spec = FakeClock(wall=time.time()), SPECS["bluesky"]
    adapter = BlueskyAdapter(spec.settings(sandbox.url))
    write = {"title": "Readback window", "body": "Ours, written once."}
    async with Client(build_platform_server(adapter, call_timeout_s=60, wall=clock.time)) as client:
        path = WRITE_PATH["bluesky"]
        sandbox.fault("bluesky", "apply_then_status", method="POST", match=path, status=502)
        await error_of(client, "write_post", **write)  # it lands, its answer is lost
        clock.advance(HOLD_S)
        again = await call(client, "write_post", **write)
    posts = [w["data"]["uri"] for w in sandbox.writes("bluesky") if w["action"] == "write_post"]
    assert posts == [again["id"]], f"the write was sent {len(posts)} times"


async def test_a_lost_bluesky_reply_is_read_from_our_repo_while_the_appview_lags(
    sandbox: SandboxControl,
) -> None:
    """As a post: the thread the AppView serves lists a new reply late; past the hold, a lost
    reply not listed yet was told absent and sent a second time."""
    sandbox.fault("bluesky", kind="lag", seconds=600)
    clock, spec = FakeClock(wall=time.time()), SPECS["bluesky"]
    adapter = BlueskyAdapter(spec.settings(sandbox.url))
    write = {"post_id": sandbox.ids("bluesky")["summons-me"], "body": "Split them per platform."}
    async with Client(build_platform_server(adapter, call_timeout_s=60, wall=clock.time)) as client:
        path = WRITE_PATH["bluesky"]
        sandbox.fault("bluesky", "apply_then_status", method="POST", match=path, status=502)
        await error_of(client, "write_comment", **write)  # it lands, its answer is lost
        clock.advance(HOLD_S)
        again = await call(client, "write_comment", **write)
    sent = [w["data"]["uri"] for w in sandbox.writes("bluesky") if w["action"] == "write_comment"]
    assert sent == [again["id"]], f"the write was sent {len(sent)} times"


async def test_a_short_search_page_with_a_cursor_is_not_all_there_is(
    sandbox: SandboxControl,
) -> None:
    """Bluesky's AppView drops, from a page of search hits, the posts of authors who block
    us, and gives the cursor all the same: 50 asked, 40 came, though 60 more matched. A
    read-back takes a result shorter than asked for all there is (kit.once.find_written)."""
    for i in range(READ_POSTS + 20):
        author = "blocker_bo" if i < 10 else f"crowd_{i}"  # theirs rank first: more likes
        words = f"Readback window, readback window: take {i}"
        sandbox.add_post({"key": f"crowd-{i}", "title": words, "author": author, "likes": i < 10})
    async with Client(SPECS["bluesky"].build(sandbox.url)) as client:
        found = await call(client, "search", query="Readback window", limit=READ_POSTS)
    assert len(found["posts"]) == READ_POSTS


async def test_a_search_left_at_its_page_cap_says_more_may_follow(sandbox: SandboxControl) -> None:
    """Every page cut short (all its hits by authors who block us) with a cursor each time:
    past the search's last page the listing is short, and ours may be on the page not read.
    A short listing without `more` reads as all there is: a lost post told absent."""
    for i in range(40):
        author = "blocker_bo" if i < 35 else f"crowd_{i}"  # theirs rank first: more likes
        words = f"Capped search, capped search: take {i}"
        sandbox.add_post({"key": f"capped-{i}", "title": words, "author": author, "likes": i < 35})
    async with Client(SPECS["bluesky"].build(sandbox.url)) as client:
        found = await call(client, "search", query="Capped search", limit=5)
    assert len(found["posts"]) < 5 and found["more"] is True, found


@pytest.mark.parametrize("platform", ["bluesky", "twitter"])
async def test_a_lost_reply_is_not_found_in_ours_under_another_parent(
    sandbox: SandboxControl, platform: str, tmp_path: Path
) -> None:
    """The same words as a reply to a comment, then to the post itself: the second one did
    not land (a 502 before the platform applied it). Its repeat read the thread back and took
    the first reply (ours, the same words, a moment old, under the comment) for it, answering
    posted with that reply's id: the reply to the post was never sent, and nobody was told."""
    thread = {
        "key": "asks-twice",
        "title": "Which queue for small jobs?",
        "body": "Hey {me}, SQLite or Redis for a small job queue?",
        "author": "asker_ann",
        "comments": [{"key": "asks-too", "author": "second_sam", "body": "{me} same here."}],
    }
    target = sandbox.add_post(thread)[platform]
    assert target is not None
    words = {"post_id": target, "body": "Thanks, that is the question I had too."}
    env = {f"{platform.upper()}_HOLD_FILE": str(tmp_path / "hold.db")}
    async with Client(SPECS[platform].build(sandbox.url, **env)) as client:
        comment = (await call(client, "get_comments", post_id=target))["comments"][0]["id"]
        first = await call(client, "write_comment", **words, parent_id=comment)
        path = WRITE_PATH[platform]
        sandbox.fault(platform, "status", status=502, method="POST", match=path, count=1)
        lost = await error_of(client, "write_comment", **words)  # it did not land
    # the repeat, by a server started anew (X's own note of the lost reply is gone with it)
    async with Client(SPECS[platform].build(sandbox.url, **env)) as client:
        again = await client.call_tool("write_comment", words, raise_on_error=False)
    assert "may have been written" in lost, lost
    replies = [w for w in sandbox.writes(platform) if w["action"] == "write_comment"]
    assert len(replies) == 1, replies
    text = again.content[0].text  # type: ignore[union-attr]
    assert again.is_error, f"answered with the reply to the comment ({first['id']}): {text}"
    assert text.startswith("unavailable: ") and "not sent again" in text, text
