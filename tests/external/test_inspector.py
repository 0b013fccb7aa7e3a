"""The MCP Inspector CLI 2.x (a client we did not write) lists and calls our servers over
stdio. It checks each structured result against the tool's output schema, error results
included (a mismatch exits 1: "data must have required property ..."), and with --strict
each tool schema's portability (an error-severity finding exits 6). A failing call must
pass that check: Inspector 2.x then prints the result, error as data, and exits 5
(`tool_is_error`, its own code for "the tool said isError": not a protocol failure)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract import CONTRACT_TOOLS, OPTIONAL_TOOLS
from tests.config import config_file
from tests.external.tools import INSPECTOR, NODE22, need
from tests.platforms import SPECS

pytestmark = pytest.mark.stdio
TOOL_IS_ERROR = 5  # Inspector 2.x: the call worked and the tool answered isError: true


class Inspector:
    """`mcp-inspector --cli` against one stdio server; its catalog and client config kept
    in a temporary directory, not in the user's home."""

    def __init__(self, home: Path, server: list[str], env: dict[str, str]) -> None:
        self.home, self.server, self.env = home, server, env

    def run(
        self, *method: str, era: str | None = None, strict: bool = False, failing: bool = False
    ) -> Any:
        """The result printed; ``failing``: a tool that answers isError (exit 5)."""
        args = [str(need(NODE22)), str(need(INSPECTOR)), "--cli", "--format", "json"]
        # its own 15 s to connect counts a server's start on a loaded machine: only catch a hang
        args += ["--connect-timeout", "150000"]
        for key, value in self.env.items():
            args += ["-e", f"{key}={value}"]
        if era is not None:
            args += ["--protocol-era", era]
        if strict:
            args.append("--strict")
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(self.home),
            "MCP_CATALOG_PATH": str(self.home / "mcp.json"),
            "MCP_CLIENT_CONFIG_PATH": str(self.home / "client.json"),
        }
        proc = subprocess.run(
            [*args, *self.server, *method], capture_output=True, text=True, timeout=180, env=env
        )
        expected = TOOL_IS_ERROR if failing else 0
        assert proc.returncode == expected, (proc.returncode, proc.stderr[-3000:], proc.stdout)
        if failing:
            assert json.loads(proc.stderr.strip().splitlines()[-1])["error"]["code"] == (
                "tool_is_error"
            )
        return json.loads(proc.stdout)["result"]

    def call(self, tool: str, *args: str, era: str | None = None, failing: bool = False) -> Any:
        pairs = [a for pair in args for a in ("--tool-arg", pair)]
        method = ("--method", "tools/call", "--tool-name", tool, *pairs)
        return self.run(*method, era=era, failing=failing)

    def error(self, tool: str, *args: str, era: str | None = None) -> dict[str, Any]:
        """A failing call's error, read as data (the Inspector accepted the result)."""
        result = self.call(tool, *args, era=era, failing=True)
        assert result.get("isError") is True, result
        error = result["structuredContent"]["error"]
        assert result["content"][0]["text"].startswith(error["kind"])  # visible as text too
        return error


@pytest.mark.parametrize("name", list(SPECS))
def test_inspector_lists_and_calls_each_platform_server(
    name: str, sandbox: SandboxControl, tmp_path: Path
) -> None:
    spec = SPECS[name]
    cli = Inspector(tmp_path, [sys.executable, "-m", spec.module], spec.env(sandbox.url))
    listed = cli.run("--method", "tools/list", strict=True)
    assert {t["name"] for t in listed["tools"]} == {*CONTRACT_TOOLS, *OPTIONAL_TOOLS}
    post_id = sandbox.ids(name)["rust-async"]
    # quoted: as a JSON number a 64-bit X id would lose digits
    called = cli.call("get_post", f'post_id="{post_id}"')
    assert called.get("isError") is not True and "select!" in called["structuredContent"]["body"]
    # A failing call is a result the Inspector accepts (exit 0), its error readable as data.
    assert cli.error("get_post", 'post_id="999999999"')["kind"] in (
        "not_found",
        "invalid_input",  # Bluesky: not even an AT URI
    )
    assert cli.error("trending", "limit=0")["kind"] == "invalid_input"
    # The same in the 2026-07-28 era.
    assert cli.error("search", "query=   ", era="modern")["kind"] == "invalid_input"


def test_inspector_drives_the_gateway(sandbox: SandboxControl, tmp_path: Path) -> None:
    config = config_file(tmp_path, ["devto"], None, {"call_timeout_s": 20}, sandbox=sandbox.url)
    # The Inspector owns --config itself, so the gateway finds its file through the env.
    cli = Inspector(
        tmp_path, [sys.executable, "-m", "gwanjong_gateway"], {"GWANJONG_CONFIG": str(config)}
    )
    for era in ("legacy", "modern"):
        listed = cli.run("--method", "tools/list", era=era, strict=True)
        names = sorted(t["name"] for t in listed["tools"])
        assert names == ["draft", "scout", "setup", "status", "strike"]
    scouted = cli.call("scout", "topic=rust async", 'platforms=["devto"]')
    assert "Rust async" in scouted["structuredContent"]["opportunities"][0]["title"]
    assert cli.error("scout", 'topic=""')["kind"] == "invalid_input"
    missing = cli.error("draft", "opportunity_id=devto-no-such-handle")
    assert missing["kind"] == "needs_previous_step"
    status = cli.call("status")
    # Each Inspector call is a new gateway process; the scouted handles are kept in the
    # record, so the next process may draft them.
    assert status["structuredContent"]["tools"]["available"] == ["scout", "draft"]
    # scout -> draft -> strike, one process each, in both eras, no custom header
    for era in ("legacy", "modern"):
        found = cli.call("scout", "topic=rust async", 'platforms=["devto"]', era=era)
        handle = found["structuredContent"]["opportunities"][0]["id"]
        drafted = cli.call("draft", f"opportunity_id={handle}", era=era)
        assert drafted["structuredContent"]["opportunity_id"] == handle
        struck = cli.call(
            "strike",
            f"opportunity_id={handle}",
            "action=post",
            f"title=On async in Rust ({era})",
            "content=Cancellation safety is a property of each await point.",
            era=era,
        )
        assert struck["structuredContent"]["status"] == "dry_run", struck
