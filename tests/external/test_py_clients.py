"""Stock Python MCP clients, used the way their documentation shows and with no custom header,
run scout -> draft -> strike against the gateway (dry-run, the default) over the sandbox.

Each client runs in its own virtualenv (scripts/py-clients; they pin `mcp` versions the
workspace does not use) through a small driver in tests/external/py/ that calls the tools
through the library's own tool objects, with no model. The workflow's state travels in
scout's opportunity id (a handle), so a client that opens a new session, or starts a new
gateway process, for every call still gets through. docs/develop/python-clients.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gwanjong_sandbox.control import SandboxControl
from tests.external.py.harness import (
    assert_dry_run_flow,
    drive,
    starts,
    stdio_command,
    write_config,
)
from tests.external.tools import client_python
from tests.gateway.http_gateway import http_gateway

pytestmark = pytest.mark.e2e
GATEWAY_TOOLS = ["draft", "scout", "setup", "status", "strike"]


def test_langchain_get_tools_over_stdio_a_gateway_process_per_call(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    python = client_python("langchain")
    config = write_config(tmp_path, sandbox)
    tally = tmp_path / "starts"
    line = json.dumps(stdio_command(config, tally))
    report = drive(python, "drive_langchain.py", "--transport", "stdio", "--command", line)
    assert report["tools"] == GATEWAY_TOOLS
    assert_dry_run_flow(report, tmp_path, sandbox)
    # tools/list, scout, draft, strike: each in a gateway process of its own
    assert starts(tally) == 4, tally.read_text()


def test_langchain_get_tools_over_http_a_session_per_call(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    python = client_python("langchain")
    config = write_config(tmp_path, sandbox)
    with http_gateway(config, log_level="WARNING") as gateway:
        report = drive(python, "drive_langchain.py", "--transport", "http", "--url", gateway.url)
    assert report["tools"] == GATEWAY_TOOLS
    assert_dry_run_flow(report, tmp_path, sandbox)
    wire = report["wire"]
    # mcp<2 speaks the handshake era only; a new Mcp-Session-Id for each of the four
    assert report["offers"] == "2025-11-25" and wire["versions"] == ["2025-11-25"], report
    assert wire["sessions"] == 4 and wire["gwanjong_headers"] == [], wire


def test_the_drivers_run_with_the_workspace_python_too() -> None:
    """flow.py is plain standard library: the workspace's python imports it (a syntax or
    import slip in the shared part shows here, before any client runs)."""
    assert sys.executable
