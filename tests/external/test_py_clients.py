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
from typing import Any

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


def run(
    python: Path, driver: str, tmp_path: Path, sandbox: SandboxControl, transport: str, *args: str
) -> dict[str, Any]:
    """``driver`` against a gateway over ``transport``: a process it starts per call
    (stdio, each start tallied in tmp_path/starts) or one HTTP gateway."""
    config = write_config(tmp_path, sandbox)
    args = ("--transport", transport, *args)
    if transport == "stdio":
        line = json.dumps(stdio_command(config, tmp_path / "starts"))
        return drive(python, driver, *args, "--command", line)
    with http_gateway(config, log_level="WARNING") as gateway:
        return drive(python, driver, *args, "--url", gateway.url)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_langchain_get_tools_a_gateway_process_or_session_per_call(
    sandbox: SandboxControl, tmp_path: Path, transport: str
) -> None:
    report = run(client_python("langchain"), "drive_langchain.py", tmp_path, sandbox, transport)
    assert report["tools"] == GATEWAY_TOOLS
    assert_dry_run_flow(report, tmp_path, sandbox)
    if transport == "stdio":  # tools/list, scout, draft, strike: a gateway process each
        assert starts(tmp_path / "starts") == 4, (tmp_path / "starts").read_text()
        return
    wire = report["wire"]
    # mcp<2 speaks the handshake era only; a new Mcp-Session-Id for each of the four
    assert report["offers"] == "2025-11-25" and wire["versions"] == ["2025-11-25"], report
    assert wire["sessions"] == 4 and wire["gwanjong_headers"] == [], wire


@pytest.mark.parametrize(
    ("transport", "api", "era"),
    [
        ("stdio", "session", "2025-11-25"),
        ("http", "client", "2026-07-28"),
        ("stdio", "client", "2026-07-28"),
        ("http", "session", "2025-11-25"),
    ],
)
def test_the_mcp_packages_own_client(
    sandbox: SandboxControl, tmp_path: Path, transport: str, api: str, era: str
) -> None:
    report = run(Path(sys.executable), "drive_mcp.py", tmp_path, sandbox, transport, "--api", api)
    assert report["protocol"] == era, report
    assert report["tools"] == GATEWAY_TOOLS
    assert_dry_run_flow(report, tmp_path, sandbox)


def test_openai_agents_over_plain_http_in_the_2026_era(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    report = run(
        client_python("openai-agents"), "drive_openai_agents.py", tmp_path, sandbox, "http"
    )
    assert report["protocol"] == "2026-07-28", report
    wire = report["wire"]
    # the stateless era: no MCP session at all, and no gwanjong header either
    assert wire["versions"] == ["2026-07-28"] and wire["sessions"] == 0, wire
    assert wire["gwanjong_headers"] == [], wire
    assert report["tools"] == GATEWAY_TOOLS
    assert_dry_run_flow(report, tmp_path, sandbox)


def test_openai_agents_serves_every_gateway_tool_strict(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    """An OpenAI model gets a tool's schema strict only when the SDK can convert it
    (`convert_schemas_to_strict`); otherwise the SDK serves it non-strict and the model may
    send arguments the schema does not allow."""
    python = client_python("openai-agents")
    report = run(python, "drive_openai_agents.py", tmp_path, sandbox, "http", "--scenario", "list")
    assert report["strict"] == dict.fromkeys(GATEWAY_TOOLS, True), report["strict"]


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize(
    ("package", "driver", "field", "era"),
    [
        ("pydantic-ai", "drive_pydantic_ai.py", "protocol", "2026-07-28"),  # a toolset per call
        ("mcp-use", "drive_mcp_use.py", "offers", "2025-11-25"),  # its client, langchain tools
    ],
    ids=["pydantic-ai", "mcp-use"],
)
def test_a_client_connecting_per_call(
    sandbox: SandboxControl,
    tmp_path: Path,
    transport: str,
    package: str,
    driver: str,
    field: str,
    era: str,
) -> None:
    report = run(client_python(package), driver, tmp_path, sandbox, transport)
    assert report[field] == era, report
    assert report["tools"] == GATEWAY_TOOLS
    assert_dry_run_flow(report, tmp_path, sandbox)
