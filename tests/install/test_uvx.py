"""Installing the gateway as a user would: `uvx --from <clone>/gateway gwanjong` from a clean
directory (PyPI reachable), then `init`, then serving a real client with a bundled
platform server that came with the install (no extras)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from gwanjong_sandbox.control import SandboxControl
from tests.config import config_file
from tests.mcp import call

pytestmark = [pytest.mark.anyio, pytest.mark.stdio, pytest.mark.e2e]
GATEWAY_DIR = Path(__file__).resolve().parents[2] / "gateway"


def clean_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "UV_PROJECT"))}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env.pop("GWANJONG_CONFIG", None)
    return env


@pytest.mark.timeout(600)
async def test_uvx_install_init_and_serve(sandbox: SandboxControl, tmp_path: Path) -> None:
    uvx = shutil.which("uvx")
    assert uvx, "uvx is part of uv, which the project requires"
    clean = tmp_path / "clean"
    clean.mkdir()
    env = clean_env(tmp_path)
    # --reinstall: build this checkout now, never a wheel cached from older sources
    done = subprocess.run(
        [uvx, "--reinstall", "--from", str(GATEWAY_DIR), "gwanjong", "init"],
        cwd=clean,
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    written = tmp_path / "xdg" / "gwanjong" / "gateway.toml"
    assert written.exists() and 'writes = "dry-run"' in written.read_text(encoding="utf-8")
    # uvx's environment is throw-away, so the snippet launches through uvx again
    assert f"--from {GATEWAY_DIR} gwanjong --config {written}" in done.stdout
    assert list(clean.iterdir()) == []

    settings = {"call_timeout_s": 60, "start_timeout_s": 120}
    others = {"devto": {"env": sandbox.env("devto")}}
    config = config_file(tmp_path, ["devto"], "dry-run", settings, others=others)
    transport = StdioTransport(
        command=uvx,
        args=["--from", str(GATEWAY_DIR), "gwanjong", "--config", str(config)],
        env=env,
        cwd=str(clean),
    )
    async with Client(transport, timeout=180) as client:
        checked = await call(client, "setup", action="check", platform="devto")
    assert checked["check"]["devto"]["ok"] is True, checked
    assert (
        checked["check"]["devto"]["actions"]["write_post"] == "approved"
    )  # a person authorises each
