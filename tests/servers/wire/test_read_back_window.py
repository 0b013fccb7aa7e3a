"""A read-back sees only so much: a server's hold (kit/hold.py) reads an unsure write back
through its real SDK over HTTP to the sandbox, and where the platform holds more than it
read (a search whose results are all others' posts with the same words), our write may lie
beyond: it must not be told absent, which sends it a second time (kit/once.py)."""

from __future__ import annotations

import json
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


@pytest.mark.parametrize("shows", [True, False], ids=["on-our-feed", "not-indexed-yet"])
async def test_a_lost_post_beyond_a_full_search_is_not_sent_again(
    sandbox: SandboxControl, shows: bool
) -> None:
    """Bluesky's search (sorted "top") ranks others' posts that repeat the text's words
    above ours, and fills the 50 results read back with them: our post landed (its answer
    lost) and did not show there, so past the hold the repeat was sent (two posts). Our own
    feed lists it first, found; while the AppView has not indexed it yet, the full search
    cannot tell, so the repeat is refused as unsure, for a person to check."""
    for i in range(READ_POSTS + 5):
        sandbox.add_post(
            {
                "key": f"crowd-{i}",
                "title": f"Readback window, readback window: take {i}",
                "body": "Others' words.",
                "author": f"crowd_{i}",
                "hours_ago": 0.5,
            }
        )
    if not shows:
        sandbox.fault("bluesky", kind="lag", seconds=600)
    clock, spec = FakeClock(wall=time.time()), SPECS["bluesky"]
    adapter = BlueskyAdapter(spec.settings(sandbox.url))
    write = {"title": "Readback window", "body": "Ours, written once."}
    async with Client(build_platform_server(adapter, call_timeout_s=60, wall=clock.time)) as client:
        sandbox.fault(
            "bluesky",
            "apply_then_status",
            method="POST",
            match="com.atproto.repo.createRecord",
            status=502,
        )
        await error_of(client, "write_post", **write)  # it lands, its answer is lost
        clock.advance(HOLD_S)
        again = await client.call_tool("write_post", write, raise_on_error=False)
    posts = [w for w in sandbox.writes("bluesky") if w["action"] == "write_post"]
    assert len(posts) == 1, f"the write was sent {len(posts)} times"
    text = again.content[0].text  # type: ignore[union-attr]
    if shows:
        assert not again.is_error and json.loads(text)["id"] == posts[0]["data"]["uri"], text
        return
    assert text.startswith("unavailable: ") and f"first {READ_POSTS} search results" in text, text
    assert "not sent again; a person must check" in text, text


async def test_a_short_search_page_with_a_cursor_is_not_all_there_is(
    sandbox: SandboxControl,
) -> None:
    """Bluesky's AppView drops, from a page of search hits, the posts of authors who block
    us, and gives the cursor all the same: 50 asked, 40 came. The read-back took that short
    page for all there is, and a lost post not indexed yet as absent: sent a second time."""
    for i in range(READ_POSTS + 20):
        author = "blocker_bo" if i < 10 else f"crowd_{i}"  # theirs rank first: more likes
        words = f"Readback window, readback window: take {i}"
        sandbox.add_post({"key": f"crowd-{i}", "title": words, "author": author, "likes": i < 10})
    sandbox.fault("bluesky", kind="lag", seconds=600)
    clock, spec = FakeClock(wall=time.time()), SPECS["bluesky"]
    adapter = BlueskyAdapter(spec.settings(sandbox.url))
    write = {"title": "Readback window", "body": "Ours, written once."}
    async with Client(build_platform_server(adapter, call_timeout_s=60, wall=clock.time)) as client:
        path = WRITE_PATH["bluesky"]
        sandbox.fault("bluesky", "apply_then_status", method="POST", match=path, status=502)
        await error_of(client, "write_post", **write)  # it lands, its answer is lost
        clock.advance(HOLD_S)
        text = await error_of(client, "write_post", **write)
    posts = [w for w in sandbox.writes("bluesky") if w["action"] == "write_post"]
    assert len(posts) == 1, f"the write was sent {len(posts)} times"
    assert f"first {READ_POSTS} search results" in text, text


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
