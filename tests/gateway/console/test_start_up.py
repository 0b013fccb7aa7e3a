"""The console costs the gateway nothing when it is off: its package is not even imported
at start-up; when on, the gateway serves it and prints the sign-in link to stderr (stdout
is the MCP wire). Each in a fresh child Python, so no other test's imports count."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.gateway.helpers import config_file

pytestmark = pytest.mark.stdio

CHILD = """
import io
import re
import sys
import anyio
import httpx
from fastmcp import Client
from gwanjong_gateway.config import parse
from gwanjong_gateway.server import build_gateway

config = parse(open(sys.argv[1], encoding="utf-8").read())

class Tee(io.StringIO):
    def write(self, text):
        sys.__stderr__.write(text)
        return super().write(text)

sys.stderr = Tee()

async def main():
    async with Client(build_gateway(config, environ={})) as client:
        await client.list_tools()
        with anyio.fail_after(30):  # only catches a hang
            while "/signin/" not in sys.stderr.getvalue() and "gwanjong_gateway.console" in sys.modules:
                await anyio.sleep(0.05)
        found = re.search(r"open (http://\\S+)", sys.stderr.getvalue())
        if found:
            async with httpx.AsyncClient() as http:
                answer = await http.get(found.group(1))
                print("sign-in answered", answer.status_code)
    print("imported" if "gwanjong_gateway.console" in sys.modules else "not imported")

anyio.run(main)
"""


def start(tmp_path: Path, enabled: bool) -> subprocess.CompletedProcess[str]:
    toml = config_file(tmp_path, [], "dry-run", tables={"console": {"enabled": enabled}})
    return subprocess.run(
        [sys.executable, "-c", CHILD, str(toml)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )


def test_off_the_console_is_not_even_imported(tmp_path: Path) -> None:
    done = start(tmp_path, enabled=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "not imported"
    assert "gwanjong console" not in done.stderr


def test_on_the_gateway_serves_it_and_prints_the_link_to_stderr(tmp_path: Path) -> None:
    done = start(tmp_path, enabled=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["sign-in", "answered", "303", "imported"]
    assert "gwanjong console: open http://127.0.0.1:" in done.stderr
    assert "/signin/" in done.stderr and "/signin/" not in done.stdout


def console_argv(tmp_path: Path) -> list[str]:
    """`gwanjong console` on a dry-run config with no platform, logging to a file too."""
    toml = config_file(tmp_path, [], "dry-run", settings={"log_file": "gateway.log"})
    return [sys.executable, "-m", "gwanjong_gateway", "console", "--config", str(toml)]


def test_gwanjong_console_prints_a_link_that_signs_in_once(tmp_path: Path) -> None:
    import httpx

    proc = subprocess.Popen(
        [*console_argv(tmp_path), "--log-level", "DEBUG"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().strip()
        assert first.startswith("gwanjong console: open http://127.0.0.1:"), first
        link = first.removeprefix("gwanjong console: open ")
        with httpx.Client(timeout=30) as http:
            assert http.get(link).status_code == 303
            assert http.get(link).status_code == 403
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert proc.returncode == 0
    # the link reaches the person's terminal only: never stderr, never the log file
    token = link.rsplit("/", 1)[1]
    assert proc.stderr is not None and token not in proc.stderr.read()
    assert token not in (tmp_path / "state" / "gateway.log").read_text(encoding="utf-8")


def test_gwanjong_console_off_loopback_without_auth_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [*console_argv(tmp_path), "--host", "0.0.0.0"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert "refusing to serve the console on 0.0.0.0 without sign-in" in done.stderr
    assert done.stdout == ""
