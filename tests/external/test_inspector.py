"""The MCP Inspector CLI (a client we did not write) lists and calls our servers over stdio."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gwanjong_gateway.config_file import render
from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract import CONTRACT_TOOLS, OPTIONAL_TOOLS
from tests.external.tools import INSPECTOR, need
from tests.platforms import SPECS

pytestmark = pytest.mark.stdio


def inspector(server: list[str], env: dict[str, str], *method: str) -> Any:
    args = ["node", str(need(INSPECTOR)), "--cli"]
    for key, value in env.items():
        args += ["-e", f"{key}={value}"]
    proc = subprocess.run([*args, *server, *method], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


@pytest.mark.parametrize("name", list(SPECS))
def test_inspector_lists_and_calls_each_platform_server(name: str, sandbox: SandboxControl) -> None:
    spec = SPECS[name]
    env = spec.env(sandbox.url)
    server = [sys.executable, "-m", spec.module]
    listed = inspector(server, env, "--method", "tools/list")
    assert {t["name"] for t in listed["tools"]} == {*CONTRACT_TOOLS, *OPTIONAL_TOOLS}
    post_id = sandbox.ids(name)["rust-async"]
    called = inspector(
        server,
        env,
        "--method",
        "tools/call",
        "--tool-name",
        "get_post",
        "--tool-arg",
        f'post_id="{post_id}"',  # quoted: as a JSON number a 64-bit X id would lose digits
    )
    assert called.get("isError") is not True and "select!" in called["structuredContent"]["body"]


def test_inspector_drives_the_gateway(sandbox: SandboxControl, tmp_path: Path) -> None:
    config = tmp_path / "gateway.toml"
    config.write_text(
        render({"state_dir": tmp_path}, {"devto": {"env": SPECS["devto"].env(sandbox.url)}}),
        encoding="utf-8",
    )
    # The Inspector owns --config itself, so the gateway finds its file through the env.
    server = [sys.executable, "-m", "gwanjong_gateway"]
    env = {"GWANJONG_CONFIG": str(config)}
    listed = inspector(server, env, "--method", "tools/list")
    assert sorted(t["name"] for t in listed["tools"]) == [
        "draft",
        "scout",
        "setup",
        "status",
        "strike",
    ]
    scouted = inspector(
        server,
        env,
        "--method",
        "tools/call",
        "--tool-name",
        "scout",
        "--tool-arg",
        "topic=rust async",
        "--tool-arg",
        'platforms=["devto"]',
    )
    assert "Rust async" in scouted["structuredContent"]["opportunities"][0]["title"]
    status = inspector(server, env, "--method", "tools/call", "--tool-name", "status")
    # Each Inspector call is a new process: a fresh client with an empty pipeline.
    assert status["structuredContent"]["tools"]["available"] == ["scout"]
