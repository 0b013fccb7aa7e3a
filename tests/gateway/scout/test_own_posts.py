"""scout never offers a post our own account wrote: the platform servers' search lists our
newest posts holding the query's words first (kit once.holding, so an unsure write can be
read back), and the inbox of a platform may list a post of ours that mentions us. Whom we
write as is the platform's capabilities answer, asked beside the reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import SOCIAL
from tests.gateway.helpers import in_memory_gateway
from tests.mcp import call

pytestmark = pytest.mark.anyio
OURS = "Zebra quokka notes"


def titles(scouted: dict[str, Any]) -> list[str]:
    return [o["title"] for o in scouted["opportunities"]]


def with_ours(seeded: bool = True) -> FakePlatform:
    social = FakePlatform(SOCIAL, seeded=seeded)
    social.add_post("ours", OURS, "What we learnt running zebra quokka.", author=SOCIAL.me)
    return social


async def test_our_own_post_listed_first_by_search_is_not_offered(tmp_path: Path) -> None:
    social = with_ours()
    social.add_post("theirs", "Zebra quokka question", "How do you run zebra quokka?")
    async with Client(fake_gateway(tmp_path, social)) as client:
        scouted = await call(client, "scout", topic="zebra quokka", limit=20)
    assert "Zebra quokka question" in titles(scouted)
    assert OURS not in titles(scouted)
    assert scouted["errors"] == {}  # others matched too: nothing to explain


async def test_when_only_our_own_posts_match_scout_says_so(tmp_path: Path) -> None:
    async with Client(fake_gateway(tmp_path, with_ours(seeded=False))) as client:
        scouted = await call(client, "scout", topic="zebra quokka", limit=20)
    assert scouted["opportunities"] == []
    assert scouted["errors"]["bluesky"] == "only our own posts matched the topic (1): never offered"


async def test_the_inbox_leaves_out_a_post_of_ours_that_mentions_us(tmp_path: Path) -> None:
    social = FakePlatform(SOCIAL)
    social.add_post("self", "Note to self", "{me} remember this", author=SOCIAL.me, summons=True)
    async with Client(fake_gateway(tmp_path, social)) as client:
        inbox = await call(client, "scout", source="mentions", limit=25)
        assert inbox["opportunities"]  # the seed's summons
        assert "Note to self" not in titles(inbox)
        again = await call(client, "scout", source="mentions", limit=25)
    assert again["opportunities"] == []  # consumed: the cursor moved past it


async def test_our_post_on_the_sandboxs_platforms_is_not_offered(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    names = ["reddit", "bluesky"]
    async with Client(in_memory_gateway(sandbox, tmp_path, names)) as client:
        scouted = await call(client, "scout", topic="month running MCP gateway", limit=25)
    assert scouted["opportunities"]
    assert not [t for t in titles(scouted) if t.startswith("A month of running")]
