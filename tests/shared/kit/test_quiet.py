"""FastMCP's quiet settings: applied in-process by a server's main(), never through os.environ,
and an operator's own FASTMCP_* choice still wins."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def _serve_until_eof(extra: dict[str, str]) -> str:
    """A platform server over stdio with stdin closed at once: it starts, then ends."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", ""), **extra}
    done = subprocess.run(
        [sys.executable, "-m", "gwanjong_devto"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**env, "GWANJONG_SPAWNED": "1"},
        timeout=120,  # a loaded machine starts Python slowly
        check=True,
    )
    assert done.stdout == ""  # stdout is the MCP wire
    return done.stderr


@pytest.mark.stdio  # spawns a process
def test_a_server_starts_without_fastmcp_chatter() -> None:
    assert "Starting MCP server" not in _serve_until_eof({})


@pytest.mark.stdio  # spawns a process
def test_the_environment_still_chooses_the_log_level() -> None:
    assert "Starting MCP server" in _serve_until_eof({"FASTMCP_LOG_LEVEL": "INFO"})
