"""Hand-offs closed only by a person or by proof (issue 34), through the real gateway, the
real Bluesky server (atproto over HTTP) and the sandbox: a reply to a post that did not
tag us is handed off; the model's `confirm_handoff` with a `javascript:` link, the link of
another post or a link the sandbox does not know leaves it waiting (claimed, unverified);
a real reply posted in the sandbox under our account (through the sandbox's Bluesky write
API with the atproto SDK, as the person's own app would) closes it with proof."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from atproto import AsyncClient, models
from fastmcp import Client

from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import in_memory_gateway, opportunity_for
from tests.gateway.strike.test_strike_platforms import strike
from tests.mcp import call
from tests.platforms import SPECS, needs

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py
TEXT = "Guards around every await saved us too."


async def reply_by_hand(sandbox_url: str, post_uri: str, text: str) -> str:
    """Reply to ``post_uri`` as our account, as a person's Bluesky app does: its web link."""
    env = SPECS["bluesky"].env(sandbox_url)
    app = AsyncClient(base_url=sandbox_url)
    me = await app.login(env["BLUESKY_HANDLE"], env["BLUESKY_APP_PASSWORD"])
    assert me is not None
    [target] = (await app.get_posts([post_uri])).posts
    ref = models.create_strong_ref(target)
    sent = await app.send_post(text, reply_to=models.AppBskyFeedPost.ReplyRef(parent=ref, root=ref))
    return f"https://bsky.app/profile/{me.handle}/post/{sent.uri.rsplit('/', 1)[1]}"


def row(state_dir: Path, record: int) -> Any:
    with closing(StrikeStore(state_dir / "gwanjong.db")) as store:
        return store.get(record)


async def test_only_proof_closes_a_handoff_the_models_word_never(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("bluesky")
    async with Client(in_memory_gateway(sandbox, tmp_path, ["bluesky"])) as client:
        scouted = await call(
            client, "scout", topic="rust async cancellation", platforms=["bluesky"], limit=10
        )
        oid = opportunity_for(scouted, "bluesky", "Rust async")
        other_url = next(
            o["url"]
            for o in scouted["opportunities"]
            if o["id"] != oid and o["url"].startswith("https://")
        )
        await client.call_tool("draft", {"opportunity_id": oid})
        handed = await strike(client, oid, TEXT)
        assert handed["status"] == "handoff", handed
        record = int(handed["record"])
        handoff = row(tmp_path, record)
        for link in (
            "javascript:alert(1)",
            other_url,  # the link of another post
            handoff.target_url.rsplit("/", 1)[0] + "/3zzzzzzzzzzzz",  # none the sandbox knows
        ):
            said = await strike(client, oid, link, action="confirm_handoff")
            assert said["status"] == "handoff" and "unverified" in said["reason"], (link, said)
            now = row(tmp_path, record)
            assert now.status is StrikeStatus.HANDOFF and now.result_url == "" and now.claimed_at
            assert "javascript" not in now.claimed_url
        assert sandbox.writes("bluesky") == []
        # the person replies by hand, as our account, from their own app: the sandbox's
        # Bluesky write API (createRecord) through the atproto SDK, not through gwanjong
        reply_url = await reply_by_hand(sandbox.url, handoff.target, handoff.content)
        posted = await strike(client, oid, reply_url, action="confirm_handoff")
        assert posted["status"] == "posted" and posted["url"] == reply_url, posted
    closed = row(tmp_path, record)
    assert closed.status is StrikeStatus.POSTED and closed.result_url == reply_url
    assert closed.result_id and any("hand-off proven" in str(p) for p in closed.policy)
    assert len(sandbox.writes("bluesky")) == 1  # the person's reply, nothing from gwanjong
