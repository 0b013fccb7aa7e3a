"""`expose` cannot carry a write to the platform: with the real Reddit server over the
sandbox, in `confirm`, neither a config that names `reddit__write_comment`, nor a call to
it by name, nor a forwarded call to it (were the load check ever bypassed) sends anything;
only strike does, and it waits for a person. The sandbox sees zero writes."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError
from mcp.shared.exceptions import MCPError

from gwanjong_gateway.config import ConfigError, parse
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.platforms.expose import _forwarded as forwarded  # pyright: ignore[reportPrivateUsage]
from gwanjong_gateway.server import build_gateway
from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import config_text, opportunity_for
from tests.mcp import call
from tests.platforms import SPECS, needs

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py


async def test_no_write_reaches_reddit_around_the_approval(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("reddit")
    with pytest.raises(ConfigError, match="reddit__write_comment' writes to the platform"):
        parse(config_text(tmp_path, ["reddit"], "confirm", {"expose": ["reddit__write_comment"]}))
    config = parse(config_text(tmp_path, ["reddit"], "confirm", {"expose": ["reddit__get_post"]}))
    gw = Gateway(config, environ={}, transports={"reddit": SPECS["reddit"].build(sandbox.url)})
    async with Client(build_gateway(config, gateway=gw), timeout=120) as client:
        scouted = await call(client, "scout", topic="rust async cancellation", limit=10)
        oid = opportunity_for(scouted, "reddit", "Rust async")
        post_id = sandbox.ids("reddit")["rust-async"]
        with pytest.raises(MCPError, match="Unknown tool: 'reddit__write_comment'"):
            await client.call_tool(
                "reddit__write_comment", {"post_id": post_id, "body": "Buy now", "parent_id": None}
            )
        # Were the load check bypassed, the forwarded call reads the real server's
        # annotations (a write: not read-only) and refuses before anything is sent.
        raw = forwarded(gw.upstreams, "reddit__write_comment", "placeholder", {"type": "object"})
        with pytest.raises(ToolError, match="may write to the platform"):
            await raw.run({"post_id": post_id, "body": "Buy now"})
        await call(client, "draft", opportunity_id=oid)
        asked = await call(
            client, "strike", opportunity_id=oid, action="comment", content="Guards fixed it."
        )
        assert asked["status"] != "posted", asked  # it waits for a person
    assert sandbox.writes("reddit") == []
