"""`gwanjong link --sandbox` for real: the entry it writes into a client's config, started
the way the client starts it (its command and args, a client's small environment), is a
gateway whose every platform talks to the local sandbox: scout finds the sandbox's
threads, a strike lands in the sandbox's write log.
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from gwanjong_gateway.cli.link.link_command import run_link
from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import config_file
from tests.mcp import approves, call

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]


async def test_the_linked_sandbox_entry_runs_a_gateway_on_the_sandbox(
    tmp_path: Path, sandbox: SandboxControl
) -> None:
    home = tmp_path / "home"
    (home / ".cursor").mkdir(parents=True)
    config = config_file(tmp_path, [])
    port = urlsplit(sandbox.url).port
    assert port is not None
    out, err = io.StringIO(), io.StringIO()
    code = run_link(
        ["cursor"],
        config=str(config),
        sandbox=True,
        sandbox_port=port,
        out=out,
        err=err,
        system="linux",
        environ={"HOME": str(home)},
    )
    assert code == 0, err.getvalue()
    entry = json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"][
        "gwanjong-sandbox"
    ]
    # a client passes little of its own environment: no platform variable at all
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home)}
    if sys.platform == "win32":
        env["SYSTEMROOT"] = os.environ.get("SYSTEMROOT", "")
    transport = StdioTransport(
        command=entry["command"], args=entry["args"], env=env, cwd=str(tmp_path)
    )
    before = sandbox.requests()
    # a Dev.to article waits for a person even in live mode: this one approves it
    async with Client(transport, timeout=120, elicitation_handler=approves) as client:
        found = await call(client, "scout", topic="MCP gateway design", platforms=["devto"])
        devto = [o for o in found["opportunities"] if o["platform"] == "devto"]
        assert devto, found
        await call(client, "draft", opportunity_id=devto[0]["id"])
        struck = await call(
            client,
            "strike",
            opportunity_id=devto[0]["id"],
            action="post",
            title="Tried gwanjong on the sandbox",
            content="Five tools instead of thirty-six.",
        )
        assert struck["status"] == "posted", struck
    after = sandbox.requests()
    assert after.get("devto", 0) > before.get("devto", 0)
    posts = [w for w in sandbox.writes("devto") if w["action"] == "write_post"]
    assert [w["data"]["title"] for w in posts] == ["Tried gwanjong on the sandbox"]
