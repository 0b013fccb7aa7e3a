"""gwanjong on an OS without the Unix-only modules, and on an install without an extra:
every command's --help and a stdio MCP session run in a child Python that cannot import
fcntl, termios or pwd (as on Windows); without psycopg, PostgreSQL mode says once what to
install, at the CLI and at the tools."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from gwanjong_gateway.cli.main import parser
from gwanjong_sandbox.control import SandboxControl
from tests.blocked_imports import env_without, run
from tests.gateway.helpers import config_file
from tests.mcp import call, error_of

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]
UNIX_ONLY = ["fcntl", "termios", "pwd"]
OURS = ("gwanjong",)  # the gateway, shared, the bundled servers: what this project imports
DEAD = "http://127.0.0.1:9"  # nothing listens: the platform is down, the gateway is not
INSTALL_HINT = "gwanjong[postgres]"


def commands(p: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """`gwanjong` and every subcommand below it, as argv prefixes."""
    found = [prefix]
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += commands(sub, (*prefix, name))
    return found


def gateway_toml(tmp: Path, store_url: str = "", platform_url: str = DEAD) -> Path:
    store = {"store": {"url": store_url}} if store_url else None
    return config_file(
        tmp, ["devto"], "dry-run", {"start_timeout_s": 60}, store, sandbox=platform_url
    )


def stdio(tmp_path: Path, config: Path, env: dict[str, str]) -> StdioTransport:
    """The gateway over stdio in ``env``, its log in ``tmp_path``/gateway.log."""
    args = ["-m", "gwanjong_gateway", "--config", str(config)]
    log = tmp_path / "gateway.log"
    return StdioTransport(sys.executable, args, env=env, cwd=str(tmp_path), log_file=log)


def test_the_blocker_blocks(tmp_path: Path) -> None:
    done = run(["-c", "import fcntl"], env_without(tmp_path, UNIX_ONLY), tmp_path)
    assert done.returncode != 0 and "No module named 'fcntl'" in done.stderr
    # imported by our code: refused; by a library's own sys.platform branch: allowed
    env = env_without(tmp_path, UNIX_ONLY, OURS)
    ours = "from gwanjong_gateway.paths import exclusive_lock as x; x(__import__('pathlib').Path('l')).__enter__()"
    done = run(["-c", ours], env, tmp_path)
    assert done.returncode != 0 and "No module named 'fcntl'" in done.stderr, done.stderr
    assert run(["-c", "import mcp.server.stdio"], env, tmp_path).returncode == 0


def test_every_command_helps_without_unix_modules(tmp_path: Path) -> None:
    env = env_without(tmp_path, UNIX_ONLY, OURS)
    every = commands(parser())
    assert ("token", "add") in every and ("history",) in every  # the walk finds them all
    for argv in every:
        done = run(["-m", "gwanjong_gateway", *argv, "--help"], env, tmp_path)
        assert done.returncode == 0, (argv, done.stderr[-1500:])
        assert done.stdout.startswith("usage: gwanjong"), (argv, done.stdout[:200])


async def test_stdio_session_without_unix_modules(tmp_path: Path) -> None:
    env = env_without(tmp_path, UNIX_ONLY, OURS)
    async with Client(stdio(tmp_path, gateway_toml(tmp_path), env), timeout=120) as client:
        names = {t.name for t in await client.list_tools()}
    assert {"scout", "draft", "strike", "setup"} <= names, names
    assert "No module named" not in (tmp_path / "gateway.log").read_text(encoding="utf-8")


def test_history_without_psycopg_says_what_to_install(tmp_path: Path) -> None:
    env = env_without(tmp_path, ["psycopg"])
    config = gateway_toml(tmp_path, "postgresql://gwanjong@127.0.0.1:9/gwanjong")
    for argv in (["history"], ["history", "--resolve", "1", "--as", "failed"], ["usage"]):
        done = run(["-m", "gwanjong_gateway", *argv, "--config", str(config)], env, tmp_path)
        assert done.returncode == 1, (argv, done.stderr[-1500:])
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and INSTALL_HINT in lines[0], (argv, done.stderr)
        assert "Traceback" not in done.stderr and "running there" not in lines[0]


def test_demo_without_the_sandbox_says_what_to_install(tmp_path: Path) -> None:
    env = env_without(tmp_path, ["gwanjong_sandbox"])
    for argv in (["demo"], ["sandbox"]):
        done = run(["-m", "gwanjong_gateway", *argv], env, tmp_path)
        assert done.returncode == 1, (argv, done.stderr[-1500:])
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "gwanjong[sandbox]" in lines[0], (argv, done.stderr)


async def test_tools_without_psycopg_say_what_to_install(
    tmp_path: Path, sandbox: SandboxControl
) -> None:
    env = env_without(tmp_path, ["psycopg"])
    config = gateway_toml(tmp_path, "postgresql://gwanjong@127.0.0.1:9/gwanjong", sandbox.url)
    async with Client(stdio(tmp_path, config, env), timeout=120) as client:
        # scout needs no record (it still ranks, not "unexpected error"); strike does
        found = await call(client, "scout", topic="mcp")
        assert found["opportunities"], found
        first = found["opportunities"][0]["id"]
        await call(client, "draft", opportunity_id=first)
        for _ in range(2):  # the same answer each time
            text = await error_of(client, "strike", opportunity_id=first, action="upvote")
            assert text.startswith("unavailable: ") and INSTALL_HINT in text, text
    said = (tmp_path / "gateway.log").read_text(encoding="utf-8")
    lines = [line for line in said.splitlines() if "is not installed" in line]
    # once by the strike record and at most once by usage metering, not once per call
    assert sum("record.records" in line for line in lines) == 1, said
    assert sum("usage.log" in line for line in lines) <= 1 and len(lines) <= 2, said
