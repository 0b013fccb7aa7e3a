"""The person-facing commands that only read answer at once: `review list/show`,
`history`, `usage` and `doctor --offline` run in a child Python that cannot import the
platform SDKs, the MCP machinery or the web stack (tests/blocked_imports.py), so any of
them pulled in on the way fails the command (issue 35; the time is bench/start/cli.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.blocked_imports import env_without, run
from tests.gateway.cli.seeded import seeded_config

pytestmark = pytest.mark.stdio

#: what a command that only reads the record and the config must never import
SDKS = ["fastmcp", "mcp", "mcp_types", "atproto", "tweepy", "asyncpraw", "httpx"]
SERVERS = ["gwanjong_devto", "gwanjong_bluesky", "gwanjong_twitter", "gwanjong_reddit"]
HEAVY = [*SDKS, "starlette", "uvicorn", "jinja2", *SERVERS]

COMMANDS = {
    "review list": "reply 1: guard each await.",
    "review show a2": "This exact text will be sent",
    "review show h2": "a post to make by hand 1",
    "history": "a post to make by hand 2",
    "usage": "",
    "doctor --offline": "record",
}


def test_the_blocker_blocks_what_the_gateway_serves_with(tmp_path: Path) -> None:
    env = env_without(tmp_path, HEAVY)
    done = run(["-c", "import gwanjong_gateway.server"], env, tmp_path)
    assert done.returncode != 0 and "No module named 'fastmcp'" in done.stderr, done.stderr


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_reading_command_imports_no_sdk_mcp_or_web_stack(tmp_path: Path, command: str) -> None:
    config = seeded_config(tmp_path, waiting=3)
    env = env_without(tmp_path, HEAVY)
    argv = ["-m", "gwanjong_gateway", *command.split(), "--config", str(config)]
    done = run(argv, env, tmp_path)
    assert "No module named" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    assert COMMANDS[command] in done.stdout
