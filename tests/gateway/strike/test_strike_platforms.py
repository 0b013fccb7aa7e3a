"""strike on platforms where a program may comment: Reddit (auto), X and Bluesky
(summoned), and each platform's length unit at max and max+1 through the whole path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from tests.gateway import helpers
from tests.gateway.helpers import in_memory_gateway
from tests.mcp import call, outcome
from tests.platforms import needs

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py
NO_FOOTER = {"min_interval_s": 0, "disclosure": ""}


async def drafted(client: Client[Any], platform: str, topic: str, title: str) -> str:
    return await helpers.drafted(client, topic, title, platform, platforms=[platform], limit=10)


async def strike(
    client: Client[Any], oid: str, content: str, action: str = "comment"
) -> dict[str, Any]:
    return await outcome(client, "strike", opportunity_id=oid, action=action, content=content)


async def test_reddit_comment_is_posted_with_the_disclosure_then_the_author_cools_down(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("reddit")
    async with Client(in_memory_gateway(sandbox, tmp_path, ["reddit"])) as client:
        oid = await drafted(client, "reddit", "rust async cancellation", "Rust async")
        result = await strike(client, oid, "Guards around each await fixed it for us.")
        assert result["status"] == "posted", result
        assert (await strike(client, oid, "Another angle."))["status"] == "duplicate"
        second = await drafted(client, "reddit", "tokio loom testing", "loom")
        cooled = await strike(client, second, "Loom is great for this.")
        assert cooled["status"] == "refused"
        assert "cool-down is 7 days" in cooled["reason"]
        assert "ferris_fan" in cooled["reason"]
    [write] = sandbox.writes("reddit")
    assert write["action"] == "write_comment"
    assert "Guards around each await" in str(write["data"])
    assert "Drafted with an AI assistant" in str(write["data"])


@pytest.mark.parametrize("platform", ["twitter", "bluesky"])
async def test_summoned_reply_posts_unsummoned_is_handed_off(
    sandbox: SandboxControl, tmp_path: Path, platform: str
) -> None:
    needs(platform)
    async with Client(in_memory_gateway(sandbox, tmp_path, [platform])) as client:
        summoned = await drafted(client, platform, "MCP gateway design feedback", "feedback")
        posted = await strike(client, summoned, "One gateway: fewer tools, smaller prompts.")
        assert posted["status"] == "posted", posted
        plain = await drafted(client, platform, "rust async cancellation", "Rust async")
        handed = await strike(client, plain, "Guards around every await.")
        assert handed["status"] == "handoff" and handed["open"].startswith("https://")
        assert "mention" in handed["reason"] or "tag" in handed["reason"]
    assert [w["action"] for w in sandbox.writes(platform)] == ["write_comment"]


@pytest.mark.parametrize(
    ("platform", "unit_text"),
    [
        ("twitter", lambda n: "한" * (n // 2) + "a" * (n % 2)),  # CJK weighs 2
        ("bluesky", lambda n: "👩‍💻" * (n // 2) + "한" * (n - n // 2)),  # graphemes
        ("reddit", lambda n: "a" * n),  # chars
    ],
)
async def test_comment_length_at_max_and_max_plus_one(
    sandbox: SandboxControl, tmp_path: Path, platform: str, unit_text: Any
) -> None:
    needs(platform)
    gateway = in_memory_gateway(sandbox, tmp_path, [platform], platform=NO_FOOTER)
    async with Client(gateway) as client:
        oid = await drafted(client, platform, "MCP gateway design feedback", "feedback")
        caps = await call(client, "draft", opportunity_id=oid)
        limit = caps["limits"]["comment"]
        over = await strike(client, oid, unit_text(limit["max"] + 1))
        assert over["status"] == "refused", over
        assert f"{limit['max'] + 1} {limit['unit']}" in over["reason"]
        assert f"limit is {limit['max']}" in over["reason"]
        fits = await strike(client, oid, unit_text(limit["max"]))
        assert fits["status"] == "posted", fits
    assert len(sandbox.writes(platform)) == 1


async def test_two_platforms_merged_and_deduplicated(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("devto", "reddit")
    async with Client(in_memory_gateway(sandbox, tmp_path, ["devto", "reddit"])) as client:
        scouted = await call(client, "scout", topic="rust async cancellation", limit=10)
        assert scouted["errors"] == {}
        urls = [o["url"] for o in scouted["opportunities"]]
        assert len(urls) == len(set(urls))
        assert {o["platform"] for o in scouted["opportunities"]} == {"devto", "reddit"}
        rust = [o for o in scouted["opportunities"] if "Rust async" in o["title"]]
        assert {o["platform"] for o in rust} == {"devto", "reddit"}
        assert scouted["opportunities"][0] in rust  # the most relevant first


async def test_a_never_action_says_never_even_while_paced(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    """An X like is never allowed: the answer says so, not "too soon, retry in N s"."""
    needs("twitter")
    gateway = in_memory_gateway(sandbox, tmp_path, ["twitter"], platform={"min_interval_s": 600})
    async with Client(gateway) as client:
        summoned = await drafted(client, "twitter", "MCP gateway design feedback", "feedback")
        assert (await strike(client, summoned, "One gateway, fewer tools."))["status"] == "posted"
        liked = await strike(client, summoned, "", action="upvote")
        assert liked["status"] == "refused", liked
        assert "Too soon" not in liked["reason"] and "retry_after" not in liked
        assert "like" in liked["reason"].lower()
    assert [w["action"] for w in sandbox.writes("twitter")] == ["write_comment"]
