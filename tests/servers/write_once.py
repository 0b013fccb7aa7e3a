"""The check each server's write-once test runs (tests/servers/<platform>/test_write_once.py):
the sandbox applies a write, then loses its answer (a 5xx from "a proxy", or a dropped
connection); the server's write tool, through its real SDK over HTTP, must send it once and
answer an unsure kind that says it may have been written. A count=1 fault means any layer
that resent the request would get it applied a second time: two writes in the log.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract.errors import UNSURE, parse_error
from tests.platforms import SPECS

#: each platform's write_post endpoint (a path fragment; the fault also needs POST)
WRITE_PATH = {
    "devto": "/api/articles",
    "bluesky": "com.atproto.repo.createRecord",
    "twitter": "/2/tweets",
    "reddit": "/api/submit",
    "mastodon": "/api/v1/statuses",
}
#: the faults, as pytest parameters: (kind, extra fault fields)
LOST = pytest.mark.parametrize(
    ("kind", "fields"),
    [("apply_then_status", {"status": 502}), ("apply_then_drop", {})],
    ids=["5xx-after-write", "dropped-after-write"],
)


async def lost_write_is_sent_once(
    sandbox: SandboxControl, platform: str, kind: str, fields: dict[str, Any]
) -> None:
    async with Client(SPECS[platform].build(sandbox.url)) as client:
        sandbox.fault(platform, kind, method="POST", match=WRITE_PATH[platform], count=1, **fields)
        result = await client.call_tool(
            "write_post",
            {"title": "Lost answer", "body": "Written once, whatever is lost."},
            raise_on_error=False,
        )
    posts = [w for w in sandbox.writes(platform) if w["action"] == "write_post"]
    assert len(posts) == 1, f"the write was sent {len(posts)} times"
    assert result.is_error, f"a lost answer reported as {result.structured_content}"
    text = result.content[0].text  # type: ignore[union-attr]
    error_kind, message, _ = parse_error(text)
    assert error_kind in UNSURE, text
    assert "may have been written" in message and "not sent again" in message, text


async def read_facing(
    sandbox: SandboxControl, platform: str, kind: str, **fields: Any
) -> tuple[int, Any]:
    """get_post of a seeded post with one fault armed on reads: (the GET requests the
    server sent, the tool's result)."""
    post_id = sandbox.ids(platform)["rust-async"]
    async with Client(SPECS[platform].build(sandbox.url)) as client:
        await client.call_tool("get_post", {"post_id": post_id})  # signed in, warm
        before = _gets(sandbox, platform)
        sandbox.fault(platform, kind, method="GET", count=1, **fields)
        result = await client.call_tool("get_post", {"post_id": post_id}, raise_on_error=False)
    return _gets(sandbox, platform) - before, result


def _gets(sandbox: SandboxControl, platform: str) -> int:
    paths = sandbox.request_paths().items()
    return sum(n for key, n in paths if key.startswith(f"{platform} GET "))


def read_failed_as_a_read(result: Any) -> None:
    """A read's failure is an ordinary one: nothing in it says a write may have landed."""
    assert result.is_error
    text = result.content[0].text
    assert text.startswith("unavailable: ") and "may have been written" not in text, text


async def sign_in_lost(sandbox: SandboxControl, platform: str, match: str) -> None:
    """A sign-in POST whose answer is lost writes nothing: write_post says the sign-in
    failed (not "may have been written"), and nothing reached the write endpoint."""
    async with Client(SPECS[platform].build(sandbox.url)) as client:
        sandbox.fault(platform, "apply_then_status", status=502, method="POST", match=match)
        result = await client.call_tool(
            "write_post", {"title": "Never sent", "body": "No session."}, raise_on_error=False
        )
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.startswith("unavailable: ") and "sign-in" in text, text
    assert "may have been written" not in text, text
    assert sandbox.writes(platform) == []
