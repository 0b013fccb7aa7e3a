"""An X reply without X's approval for AI-generated replies (the default), through the real
gateway, the real X server (tweepy over HTTP) and the sandbox: X's developer guidelines want
prior approval for an app whose AI generates and posts replies, and the model drafts every
reply, so even a summoned one is handed to a person and nothing reaches X."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from gwanjong_twitter.server import hosted
from tests.gateway.helpers import in_memory_gateway, opportunity_for
from tests.gateway.strike.test_strike_platforms import strike
from tests.mcp import call
from tests.platforms import needs
from tests.specs.twitter import AI_REPLIES, unapproved

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py


async def test_a_summoned_reply_is_handed_off_until_x_approved_ai_replies(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("twitter")
    x = hosted(unapproved(sandbox.url))
    gateway = in_memory_gateway(
        sandbox, tmp_path, ["twitter"], platform={"min_interval_s": 0}, servers={"twitter": x}
    )
    async with Client(gateway) as client:
        scouted = await call(
            client, "scout", topic="MCP gateway design feedback", platforms=["twitter"], limit=10
        )
        oid = opportunity_for(scouted, "twitter", "feedback")
        drafted = await call(client, "draft", opportunity_id=oid)
        handed = await strike(client, oid, "One gateway: fewer tools, smaller prompts.")
    rule = drafted["strike"]["actions"]["comment"]
    assert rule["allowed"] == "human" and f"{AI_REPLIES}=true" in rule["reason"], rule
    assert handed["status"] == "handoff" and handed["open"].startswith("https://"), handed
    assert f"{AI_REPLIES}=true" in handed["reason"], handed
    assert sandbox.writes("twitter") == []
