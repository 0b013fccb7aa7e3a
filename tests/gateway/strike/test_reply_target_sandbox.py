"""What the person is shown as a reply's target is where the reply lands, through the real
gateway, the real Reddit server (asyncpraw over HTTP) and the sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from mcp.types import ElicitResult

from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import in_memory_gateway
from tests.mcp import call
from tests.platforms import needs

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py


async def test_a_reply_to_an_inbox_comment_shows_where_it_lands(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("reddit")
    shown: list[str] = []

    async def person(message: str, response_type: Any, params: Any, ctx: Any) -> ElicitResult:
        shown.append(message)
        return ElicitResult(action="accept", content={"decision": "approve"})

    gateway = in_memory_gateway(
        sandbox, tmp_path, ["reddit"], "confirm", platform={"min_interval_s": 0}
    )
    async with Client(gateway, elicitation_handler=person) as client:
        scouted = await call(client, "scout", source="mentions", platforms=["reddit"])
        [item, *_] = [o for o in scouted["opportunities"] if o.get("summoned")]
        await call(client, "draft", opportunity_id=item["id"])
        got = await call(
            client, "strike", opportunity_id=item["id"], action="comment", content="Thanks!"
        )
    assert got["status"] == "posted", got
    # the dialog named the thread: the reply lands on it, not under the comment that
    # summoned us (a Reddit inbox item's id is its thread's)
    [write] = sandbox.writes("reddit")
    assert write["action"] == "write_comment" and write["target"] == "t3_1qibgp8", write
    thread = "https://www.reddit.com/r/programming/comments/1qibgp8/our_llm_agent_made_40_tool_calls_to_post_one_reply/"
    [dialog] = shown
    assert f"a reply to {thread} on reddit" in dialog, dialog
    assert item["url"] == thread
