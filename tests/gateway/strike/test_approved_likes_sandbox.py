"""An X like where TWITTER_LIKES_ALLOWED=true, through the real gateway, the real X server
(tweepy over HTTP) and the sandbox, with writes = "live": X says "Likes must be directly
user-initiated; auto-liking is prohibited", so nothing reaches X until a person approves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import in_memory_gateway, opportunity_for
from tests.mcp import approves, call
from tests.platforms import SPECS, needs

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py


def liking(sandbox: SandboxControl, state_dir: Path) -> Any:
    x = SPECS["twitter"].build(sandbox.url, TWITTER_LIKES_ALLOWED="true")
    return in_memory_gateway(
        sandbox, state_dir, ["twitter"], platform={"min_interval_s": 0}, servers={"twitter": x}
    )


async def like(client: Client[Any]) -> dict[str, Any]:
    scouted = await call(client, "scout", topic="rust async cancellation", platforms=["twitter"])
    oid = opportunity_for(scouted, "twitter", "Rust async")
    drafted = await call(client, "draft", opportunity_id=oid)
    assert drafted["strike"]["actions"]["upvote"]["allowed"] == "approved", drafted["strike"]
    result: dict[str, Any] = await call(
        client, "strike", opportunity_id=oid, action="upvote", content=""
    )
    return result


async def test_a_like_in_live_mode_waits_for_a_person(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("twitter")
    async with Client(liking(sandbox, tmp_path / "nobody")) as client:  # no dialog
        waits = await like(client)
    assert waits["status"] == "pending_approval", waits
    assert sandbox.writes("twitter") == []
    async with Client(liking(sandbox, tmp_path / "person"), elicitation_handler=approves) as client:
        liked = await like(client)
    assert liked["status"] == "posted", liked
    assert [w["action"] for w in sandbox.writes("twitter")] == ["upvote"]
