"""An MCP session id is bound to its credential: whoever has it acts as that session while
it lives. The SDK's session manager logs each one at INFO, and in a warning when another
credential presents it; the gateway's log never holds one, at any level, while its own
lines still come through."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.gateway.helpers import config_file
from tests.gateway.http_gateway import INIT, cli, http_gateway, initialize, mcp_headers

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]


async def test_no_session_id_reaches_the_log(tmp_path: Path) -> None:
    config = config_file(tmp_path, [], "dry-run", tables={"auth": {"mode": "tokens"}})
    alice, bob = (cli(config, "token", "add", name).stdout.strip() for name in ("alice", "bob"))
    with http_gateway(config, log_level="DEBUG") as gw:
        session = (await initialize(gw.url, alice)).headers["mcp-session-id"]
        async with httpx.AsyncClient(timeout=30) as http:
            ping = json.dumps({**INIT, "method": "ping", "params": {}})
            stolen = await http.post(gw.url, content=ping, headers=mcp_headers(bob, session))
        assert stolen.status_code == 404
        log = gw.log()
    assert "serving MCP on http://127.0.0.1:" in log
    assert "credential does not match" in log  # the SDK's warning, its id masked
    assert session not in log
