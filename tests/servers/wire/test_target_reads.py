"""One target read per write: the server's write tool validates (reading the target) and
then writes, and a gateway validates just before; through the real SDKs over HTTP to the
sandbox, that whole sequence reads the target from the platform once. Our own write, or
the TTL passing (an injected clock, never a sleep), makes the next validate read again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastmcp import Client, FastMCP

from gwanjong_bluesky.adapter import BlueskyAdapter
from gwanjong_devto.adapter import DevtoAdapter
from gwanjong_hackernews.adapter import HackernewsAdapter
from gwanjong_mastodon.adapter import MastodonAdapter
from gwanjong_reddit.adapter import RedditAdapter
from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.kit.adapter import PlatformAdapter
from gwanjong_shared.kit.server import build_platform_server
from gwanjong_shared.kit.target_cache import DEFAULT_TTL_S
from gwanjong_twitter.adapter import TwitterAdapter
from tests.fakes.clock import FakeClock
from tests.mcp import call, error_of, outcome
from tests.platforms import SPECS, PlatformSpec

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py

ADAPTERS: dict[str, Callable[..., PlatformAdapter]] = {
    "bluesky": BlueskyAdapter,
    "devto": DevtoAdapter,
    "hackernews": HackernewsAdapter,
    "mastodon": MastodonAdapter,
    "reddit": RedditAdapter,
    "twitter": TwitterAdapter,
}
BODY = "Thanks for asking: one gateway in front of all four keeps the rules in one place."


def server(spec: PlatformSpec, sandbox: SandboxControl, clock: FakeClock) -> FastMCP[Any]:
    """The platform's server as its build_server makes it, but with our clock in the adapter."""
    adapter = ADAPTERS[spec.name](spec.settings(sandbox.url), clock=clock)
    return build_platform_server(adapter, call_timeout_s=60)


def target_reads(sandbox: SandboxControl, name: str, post_id: str) -> int:
    """Requests that read the target post, on the wire."""
    path = {
        "bluesky": "GET /xrpc/app.bsky.feed.getPosts",  # only targets use getPosts
        "devto": f"GET /api/articles/{post_id}",
        "hackernews": f"GET /v0/item/{post_id}.json",
        "mastodon": f"GET /api/v1/statuses/{post_id}",
        "reddit": f"GET /reddit/comments/{post_id}/",
        "twitter": f"GET /2/tweets/{post_id}",
    }[name]
    return sandbox.request_paths().get(f"{name} {path}", 0)


def reads_targets(spec: PlatformSpec) -> bool:
    """Whether validating a comment looks at the target at all (not for a flat `human`)."""
    return spec.rules["write_comment"] in ("auto", "summoned")


@pytest.mark.parametrize("name", sorted(SPECS))
async def test_validate_then_write_reads_the_target_once(
    name: str, sandbox: SandboxControl
) -> None:
    spec = SPECS[name]
    clock = FakeClock()
    post_id = sandbox.ids(name)["summons-me"]
    async with Client(server(spec, sandbox, clock)) as client:
        check = await call(client, "validate", action="write_comment", body=BODY, post_id=post_id)
        written = await outcome(client, "write_comment", post_id=post_id, body=BODY)
        if not reads_targets(spec):  # Dev.to, HN: no program comments; nothing read or sent
            assert check["ok"] is False
            assert written.get("error", "").startswith("not_supported: "), written
            assert target_reads(sandbox, name, post_id) == 0
            return
        assert check["ok"] is True, check
        assert written.get("ok") is True, written
        # validate, then the write tool's own validate and the write: one read on the wire
        assert target_reads(sandbox, name, post_id) == 1

        # our reply changed the target: the next validate reads it again, then keeps it
        await call(client, "validate", action="write_comment", body=BODY, post_id=post_id)
        assert target_reads(sandbox, name, post_id) == 2
        await call(client, "validate", action="write_comment", body=BODY, post_id=post_id)
        assert target_reads(sandbox, name, post_id) == 2

        clock.advance(DEFAULT_TTL_S - 0.5)
        await call(client, "validate", action="write_comment", body=BODY, post_id=post_id)
        assert target_reads(sandbox, name, post_id) == 2
        clock.advance(0.5)  # the TTL has passed: read afresh
        await call(client, "validate", action="write_comment", body=BODY, post_id=post_id)
        assert target_reads(sandbox, name, post_id) == 3


async def test_bluesky_like_reads_the_target_once(sandbox: SandboxControl) -> None:
    if "bluesky" not in SPECS:
        pytest.skip("bluesky is not in GWANJONG_TEST_PLATFORMS")
    post_id = sandbox.ids("bluesky")["summons-me"]
    async with Client(server(SPECS["bluesky"], sandbox, FakeClock())) as client:
        check = await call(client, "validate", action="upvote", body="", post_id=post_id)
        assert check["ok"] is True, check
        liked = await call(client, "upvote", post_id=post_id)
        assert liked["ok"] is True
    assert target_reads(sandbox, "bluesky", post_id) == 1


async def test_a_missing_target_is_asked_about_again(sandbox: SandboxControl) -> None:
    """Failures are not kept: a post that was missing may exist a moment later."""
    if "twitter" not in SPECS:
        pytest.skip("twitter is not in GWANJONG_TEST_PLATFORMS")
    missing = "1234567"
    async with Client(server(SPECS["twitter"], sandbox, FakeClock())) as client:
        for _ in range(2):
            text = await error_of(
                client, "validate", action="write_comment", body=BODY, post_id=missing
            )
            assert text.startswith("not_found: ")
    assert target_reads(sandbox, "twitter", missing) == 2
