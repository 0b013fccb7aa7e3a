"""The platform's remaining budget in each tool result's `_meta`: read by the real SDKs from
the sandbox's rate headers (X `x-rate-limit-*`, Reddit `x-ratelimit-*`, Mastodon
`X-RateLimit-*` with an ISO 8601 reset), attached by the server kit, absent when the platform
said nothing (Dev.to sends no window on success)."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract.rate import META_KEY, RateWindow, window_from_meta
from tests.platforms import SPECS

pytestmark = pytest.mark.anyio


async def window_of(client: Client[Any], tool: str, **args: Any) -> RateWindow | None:
    result = await client.call_tool_mcp(tool, args)
    assert not result.is_error, result.content
    return window_from_meta(result.meta)


def reset_epoch(window: RateWindow) -> float:
    assert window.reset_at is not None and window.reset_at.endswith("Z")
    return datetime.fromisoformat(window.reset_at.replace("Z", "+00:00")).timestamp()


#: (platform, tool, its window's limit, the window's length in seconds)
WINDOWS = [
    ("twitter", "search", 450, 900),  # GET /2/tweets/search/recent: 450 per 15 min, as on X
    ("reddit", "get_post", 1000, 600),  # the account's budget: used + remaining, 10 minutes
    ("mastodon", "get_post", 300, 300),  # per account, 5 minutes, its reset an ISO 8601 time
]


@pytest.mark.parametrize(("platform", "tool", "limit", "window_s"), WINDOWS)
async def test_a_result_carries_the_platforms_window(
    sandbox: SandboxControl, platform: str, tool: str, limit: int, window_s: int
) -> None:
    args = (
        {"query": "rust"} if tool == "search" else {"post_id": sandbox.ids(platform)["rust-async"]}
    )
    before = time.time()
    async with Client(SPECS[platform].build(sandbox.url)) as client:
        first = await window_of(client, tool, **args)
        second = await window_of(client, tool, **args)
    after = time.time()
    assert first is not None and second is not None
    assert first.limit == limit and second.limit == limit
    assert 0 < second.remaining < first.remaining < limit
    # the window ends after the call and at most its length after it (whole seconds)
    assert before - 1 < reset_epoch(second) <= after + window_s + 1


async def test_no_window_no_meta(sandbox: SandboxControl) -> None:
    async with Client(SPECS["devto"].build(sandbox.url)) as client:
        result = await client.call_tool_mcp("search", {"query": "rust"})
    assert not result.is_error
    assert META_KEY not in (result.meta or {})


def test_bad_shapes_are_ignored() -> None:
    assert window_from_meta(None) is None
    assert window_from_meta({META_KEY: "lots"}) is None
    assert window_from_meta({META_KEY: {"remaining": -1}}) is None
    assert window_from_meta({META_KEY: {"limit": 5}}) is None
    good = window_from_meta({META_KEY: {"remaining": 3, "limit": None, "reset_at": None, "x": 1}})
    assert good == RateWindow(remaining=3)
    odd = window_from_meta({META_KEY: {"remaining": 3, "reset_at": "tomorrow"}})
    assert odd == RateWindow(remaining=3)  # an unreadable reset is dropped, the rest kept
    shifted = window_from_meta(
        {META_KEY: {"remaining": 3, "reset_at": "2026-11-30T18:00:00+01:00"}}
    )
    assert shifted is not None and shifted.reset_at == "2026-11-30T17:00:00Z"
