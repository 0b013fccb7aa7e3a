"""The smaller degrade items through the real gateway (in-memory MCP): opt-out handle
forms, draft limits net of the disclosure footer, elicitation modes, the version."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult

from gwanjong_bluesky.profile import PROFILE as BLUESKY
from gwanjong_devto.profile import PROFILE as DEVTO
from gwanjong_gateway.rules.policy import is_opted_out
from gwanjong_gateway.rules.profiles import Profiles
from gwanjong_reddit.profile import PROFILE as REDDIT
from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract import Capabilities
from gwanjong_twitter.profile import PROFILE as TWITTER
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import LINKS
from tests.gateway.approval_clients import url_only
from tests.gateway.helpers import drafted, in_memory_gateway, opportunity_for
from tests.mcp import call
from tests.platforms import needs

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("entry", "platform", "author", "expected"),
    [
        ("mara_codes", "devto", "mara_codes", True),
        ("@Mara_Codes", "twitter", "mara_codes", True),
        ("mara_codes", "bluesky", "mara-codes.bsky.social", True),
        ("mara-codes.bsky.social", "bluesky", "mara-codes.bsky.social", True),
        ("@mara-codes", "bluesky", "mara-codes.bsky.social", True),
        ("devto:mara_codes", "devto", "mara_codes", True),
        ("devto:mara_codes", "reddit", "mara_codes", False),
        ("x:mara_codes", "twitter", "mara_codes", True),
        ("u/mara_codes", "reddit", "mara_codes", True),
        (
            "https://bsky.app/profile/mara-codes.bsky.social",
            "bluesky",
            "mara-codes.bsky.social",
            True,
        ),
        ("https://x.com/mara_codes", "devto", "mara_codes", False),
        ("mara-codes", "reddit", "mara_codes", False),  # two different Reddit users
        ("mara", "devto", "mara_codes", False),
        ("mara_codes", "devto", "", False),
    ],
)
def test_opt_out_forms(entry: str, platform: str, author: str, expected: bool) -> None:
    # The spellings are each platform's own, from the profile its server declares.
    profiles = Profiles()
    declared = {"devto": DEVTO, "bluesky": BLUESKY, "twitter": TWITTER, "reddit": REDDIT}
    for name, profile in declared.items():
        caps = Capabilities(platform=name, configured=True, actions={}, limits={}, profile=profile)
        profiles.remember(name, caps)
    assert is_opted_out([entry], platform, author, profiles) is expected


async def test_one_opt_out_entry_covers_the_person_on_every_platform(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("devto", "bluesky")
    topic = {"topic": "rust async cancellation", "limit": 10}

    def rust(scouted: dict[str, object], platform: str) -> bool:
        return any(
            o["platform"] == platform and "Rust async" in o["title"]  # type: ignore[index]
            for o in scouted["opportunities"]  # type: ignore[attr-defined]
        )

    both = ["devto", "bluesky"]
    async with Client(in_memory_gateway(sandbox, tmp_path / "a", both)) as client:
        scouted = await call(client, "scout", **topic)
        assert rust(scouted, "devto") and rust(scouted, "bluesky")  # ferris_fan's post on each
    gateway = in_memory_gateway(
        sandbox, tmp_path / "b", both, tables={"safety": {"opt_out": ["@Ferris_Fan"]}}
    )
    async with Client(gateway) as client:
        scouted = await call(client, "scout", **topic)
        assert not rust(scouted, "devto") and not rust(scouted, "bluesky")
    only_bluesky = {"safety": {"opt_out": ["bluesky:ferris-fan.bsky.social"]}}
    gateway = in_memory_gateway(sandbox, tmp_path / "c", both, tables=only_bluesky)
    async with Client(gateway) as client:
        scouted = await call(client, "scout", **topic)
        assert rust(scouted, "devto") and not rust(scouted, "bluesky")


async def test_draft_limits_are_net_of_the_disclosure_footer(tmp_path: Path) -> None:
    links = FakePlatform(LINKS)  # its server declares its own footer
    async with Client(fake_gateway(tmp_path, links, writes="dry-run")) as client:
        scouted = await call(client, "scout", topic="MCP gateway design feedback", limit=10)
        oid = opportunity_for(scouted, "reddit", "feedback")
        drafted = await call(client, "draft", opportunity_id=oid)
        assert LINKS.about is not None
        footer = len(LINKS.about.disclosure)  # the footer the platform's own server declares
        limit = drafted["limits"]["comment"]
        assert limit == {"max": 10_000 - footer, "unit": "chars", "footer": footer}
        fits = await call(
            client, "strike", opportunity_id=oid, action="comment", content="a" * limit["max"]
        )
        assert fits["status"] == "dry_run", fits
        over = await call(
            client, "strike", opportunity_id=oid, action="comment", content="a" * (limit["max"] + 1)
        )
        assert over["status"] == "refused" and "disclosure" in over["reason"], over


async def test_a_url_only_client_never_gets_a_form(
    forum: FakePlatform, tmp_path: Path, mode: str
) -> None:
    asked: list[Any] = []

    async def handler(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        asked.append(params)
        return ElicitResult(action="accept")

    gateway = fake_gateway(tmp_path, forum, writes="confirm")
    async with url_only(Client(gateway, mode=mode, elicitation_handler=handler)) as client:
        oid = await drafted(client)
        post = {"action": "post", "content": "Hi.", "title": "Hello"}
        result = await call(client, "strike", opportunity_id=oid, **post)
    # a link to the approval's page, never a form; the write waits for the person there
    assert result["status"] == "pending_approval" and "page" in result["reason"], result
    assert len(asked) == 1 and asked[0].mode == "url" and "/approval/" in asked[0].url
    assert not hasattr(asked[0], "requested_schema") and forum.writes == []


@pytest.mark.stdio  # spawns a process
async def test_server_version_is_gwanjongs(forum: FakePlatform, tmp_path: Path, mode: str) -> None:
    async with Client(fake_gateway(tmp_path, forum), mode=mode) as client:
        info = client.server_info  # either era
        assert info is not None and info.version == version("gwanjong")
    argv = [sys.executable, "-m", "gwanjong_gateway", "--version"]
    out = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == f"gwanjong {version('gwanjong')}"
