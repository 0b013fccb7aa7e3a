"""A fifth platform joins by configuration alone: a server the gateway has never heard
of, spawned over stdio from `[platforms.mastodon] command = [...]`, brings its own writing
guide, disclosure footer, setup guide and handle spellings through `capabilities`, and
scout -> draft -> strike -> setup all use them with no gateway change."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import FastMCPTransport

from gwanjong_gateway.config import parse
from gwanjong_gateway.scout.guides import COMMON, FALLBACK
from gwanjong_gateway.server import build_gateway
from gwanjong_shared.kit.server import build_platform_server
from tests.fifth import server as fifth
from tests.gateway.helpers import config_text, patient_gateway
from tests.mcp import call, until_up

pytestmark = pytest.mark.anyio

SERVER = Path(fifth.__file__)


def gateway_toml(state_dir: Path, opt_out: list[str], **settings: Any) -> str:
    # A cold start of the spawned server is slow on a loaded machine: the tests wait for
    # it to be up (`until_up`), under a start bound that only catches a hang.
    settings = {"call_timeout_s": 20, "start_timeout_s": 300, **settings}
    server = {"command": [sys.executable, str(SERVER)], "env": {"MASTODON_TOKEN": "test-token"}}
    tables = {"safety": {"opt_out": opt_out}}
    return config_text(
        state_dir,
        [],
        settings=settings,
        tables=tables,
        others={"mastodon": {**server, "min_interval_s": 0}},
    )


@pytest.mark.stdio  # spawns a process
async def test_a_fifth_platform_works_with_its_own_guide_disclosure_and_setup(
    tmp_path: Path,
) -> None:
    # "toot:" is the fifth platform's own alias: only its profile says it means mastodon.
    opt_out = ["toot:Quiet_One@fifth.example"]
    config = parse(gateway_toml(tmp_path, opt_out, expose=["mastodon__get_comments"]))
    async with Client(build_gateway(config, gateway=patient_gateway(config))) as client:
        await until_up(client, ["mastodon"])
        scouted = await call(client, "scout", topic="rust async cancellation", limit=5)
        assert scouted["errors"] == {}, scouted
        found = {o["id"]: o for o in scouted["opportunities"]}
        assert [o["platform"] for o in found.values()] == ["mastodon"], scouted
        assert all("again" not in o["title"] for o in found.values())  # quiet_one opted out
        oid = next(iter(found))

        drafted = await call(client, "draft", opportunity_id=oid)
        assert fifth.GUIDE in drafted["guide"]
        assert drafted["strike"]["disclosure_appended"] == fifth.FOOTER
        assert drafted["limits"]["comment"]["max"] == 500 - len(fifth.FOOTER)

        reply = "Keep the state outside the select! arm; it survives the drop."
        struck = await call(client, "strike", opportunity_id=oid, action="comment", content=reply)
        assert struck["status"] == "posted", struck
        assert struck["url"].startswith("https://fifth.example/@fifth_bot/"), struck
        # what the server received, read back through an exposed raw tool: the footer too
        comments = await call(client, "mastodon__get_comments", post_id="1")
        assert [c["body"] for c in comments["comments"]] == [reply + fifth.FOOTER]

        guide = await call(client, "setup", action="guide", platform="mastodon")
        assert guide["guides"]["mastodon"]["steps"] == [fifth.SETUP_STEP]
        assert guide["guides"]["mastodon"]["vars"] == ["MASTODON_TOKEN"]
        checked = await call(client, "setup", action="check")
        assert checked["check"]["mastodon"]["ok"] is True
        assert checked["check"]["mastodon"]["account"] == "fifth_bot"


async def test_a_platform_without_a_profile_gets_generic_text(tmp_path: Path) -> None:
    """Optional means optional: no guide, no footer, no setup text of its own."""
    bare = {"bare": {"command": [sys.executable, str(SERVER)], "min_interval_s": 0}}
    text = config_text(tmp_path, [], "dry-run", others=bare)
    server = build_platform_server(fifth.BareAdapter("token"))  # no profile=
    config = parse(text)
    gw = patient_gateway(config, {}, {"bare": FastMCPTransport(server)})
    gateway = build_gateway(config, gateway=gw)
    async with Client(gateway) as client:
        scouted = await call(client, "scout", topic="rust async cancellation", limit=5)
        assert len(scouted["opportunities"]) == 2, scouted  # no opt-out: both posts
        oid = scouted["opportunities"][0]["id"]
        drafted = await call(client, "draft", opportunity_id=oid)
        assert drafted["guide"] == COMMON + FALLBACK
        assert drafted["strike"]["disclosure_appended"] is None
        assert drafted["limits"]["comment"] == {"max": 500, "unit": "chars"}
        struck = await call(client, "strike", opportunity_id=oid, action="comment", content="Hi.")
        assert struck["status"] == "dry_run", struck
        guide = await call(client, "setup", action="guide", platform="bare")
        assert "does not describe its setup" in guide["guides"]["bare"]["steps"][0]
