"""A read-back sees only so much: a server's hold (kit/hold.py) reads an unsure write back
through its real SDK over HTTP to the sandbox, and where the platform holds more than it
read (a search whose results are all others' posts with the same words), our write may lie
beyond: it must not be told absent, which sends it a second time (kit/once.py)."""

from __future__ import annotations

import json
import time

import pytest
from fastmcp import Client

from gwanjong_bluesky.adapter import BlueskyAdapter
from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.kit.once import HOLD_S, READ_POSTS
from gwanjong_shared.kit.server import build_platform_server
from tests.fakes.clock import FakeClock
from tests.mcp import error_of
from tests.platforms import SPECS

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
