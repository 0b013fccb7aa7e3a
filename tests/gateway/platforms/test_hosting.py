"""Bundled platforms in the gateway's interpreter, over MCP: found by entry point, started
on first use, isolated from each other's failures; `isolation = "process"` still spawns."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_gateway.config import ConfigError, parse
from gwanjong_gateway.server import build_gateway
from gwanjong_sandbox.control import SandboxControl
from tests.e2e.procs import alive, find
from tests.gateway.helpers import config_text
from tests.mcp import call, until
from tests.platforms import SPECS

pytestmark = pytest.mark.anyio

FAULTY = {
    "raising": "raising",
    "sleeping": "sleeping",
    "badstart": "bad_start",
    "badbuild": "bad_build",
    "leaking": "leaking",
}


@pytest.fixture
def faulty_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Declare the faulty servers as an installed package would: an entry-point group."""
    dist = tmp_path / "site" / "gwanjong_faulty-0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: gwanjong-faulty\nVersion: 0\n")
    lines = ["[gwanjong.platforms]"]
    lines += [f"{name} = tests.gateway.faulty_platforms:{fn}" for name, fn in FAULTY.items()]
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))


def spawned(needle: str) -> list[int]:
    return find(os.getpid(), needle)


@pytest.mark.stdio
async def test_isolation_process_spawns_the_server(sandbox: SandboxControl, tmp_path: Path) -> None:
    config = parse(config_text(tmp_path, ["devto"], platform={"isolation": "process"}))
    gateway = build_gateway(config, environ=SPECS["devto"].env(sandbox.url))
    async with Client(gateway, timeout=90) as client:
        assert (await call(client, "status"))["platforms"]["devto"]["health"] == "not started"
        assert spawned("gwanjong_devto") == []
        scouted = await call(client, "scout", topic="rust async")
        assert {o["platform"] for o in scouted["opportunities"]} == {"devto"}
        [pid] = spawned("gwanjong_devto")
    await until(lambda: not alive(pid), 30)  # closing the gateway ends the server it spawned


async def test_bundled_platforms_start_in_process_on_first_use_and_a_failing_one_leaves_the_others(
    sandbox: SandboxControl, tmp_path: Path, faulty_installed: None
) -> None:
    text = config_text(tmp_path, ["devto", *FAULTY], settings={"call_timeout_s": 5})
    environ = {**SPECS["devto"].env(sandbox.url), "BADBUILD_TOKEN": "s3cr3t-" + "x" * 150}
    environ["LEAKING_KEY"] = "s3cr3t-key"
    gateway = build_gateway(parse(text), environ=environ)
    async with Client(gateway, timeout=120) as client:
        status = await call(client, "status")
        assert status["platforms"]["devto"]["health"] == "not started"
        scouted = await call(client, "scout", topic="rust async")
        assert {o["platform"] for o in scouted["opportunities"]} == {"devto"}
        errors: dict[str, Any] = scouted["errors"]
        assert set(errors) == set(FAULTY)
        for name in ("raising", "badstart", "badbuild", "leaking"):
            assert "unavailable" in errors[name], errors[name]
        assert "timeout" in errors["sleeping"] or "no answer" in errors["sleeping"]
        # the reason, not a traceback, and never the platform's secret it quoted
        assert "BADBUILD_TOKEN *** is malformed" in errors["badbuild"]
        assert "Traceback" not in str(errors)
        status = await call(client, "status")
        assert "s3cr3t" not in str(scouted) + str(status)
        health = {name: row["health"] for name, row in status["platforms"].items()}
        assert health["devto"] == "up" and health["badbuild"] == "down"
        assert health["badstart"] == "down"
        # The gateway still serves: the next scout answers as well.
        again = await call(client, "scout", topic="uv workspaces", platforms=["devto"])
        assert again["opportunities"] and again["errors"] == {}
        assert spawned("gwanjong_devto") == []  # no subprocess: the same interpreter
    assert sandbox.requests().get("devto", 0) > 0


def test_a_declared_platform_needs_no_command(tmp_path: Path, faulty_installed: None) -> None:
    config = parse(config_text(tmp_path, ["raising"]))
    assert config.platforms["raising"].isolation == "in-process"
    with pytest.raises(ConfigError, match="not bundled"):
        parse(config_text(tmp_path, ["nosuchplatform"]))
    with pytest.raises(ConfigError, match="isolation"):
        parse(config_text(tmp_path, ["devto"], platform={"isolation": "thread"}))


#: What is slow to import today (seconds each on a small machine: `python -X importtime`):
#: the platform servers and their SDKs, the tokenizer behind token counts, the PostgreSQL
#: driver. Each is installed in the test environment, which the child checks first, so the
#: watch can fire.
SERVERS = ("gwanjong_devto", "gwanjong_bluesky", "gwanjong_twitter", "gwanjong_reddit")
HEAVY = (*SERVERS, "atproto", "tweepy", "asyncpraw", "twikit", "bpe_openai", "psycopg")


@pytest.mark.stdio  # spawns a process
def test_no_platform_sdk_is_imported_before_first_use(tmp_path: Path) -> None:
    """Building the gateway imports no platform server, no SDK, no tokenizer and no
    PostgreSQL driver (checked in a fresh interpreter, since this test process has
    imported them already)."""
    import subprocess

    code = (
        "import importlib.util, sys\n"
        f"heavy = {HEAVY!r}\n"
        "missing = [m for m in heavy if importlib.util.find_spec(m) is None]\n"
        "assert not missing, f'not installed, so not watched: {missing}'\n"
        "from gwanjong_gateway.config import parse\n"
        "from gwanjong_gateway.server import build_gateway\n"
        f"build_gateway(parse({config_text(tmp_path, ['devto', 'bluesky', 'twitter', 'reddit'])!r}), environ={{}})\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_a_hosted_server_keeps_its_write_hold_with_the_gateways_state(tmp_path: Path) -> None:
    """A server the gateway hosts or spawns keeps its write hold (kit/hold.py) in the
    gateway's state_dir, not the person's default folder (a demo's or a team's state stays
    apart); one set in the environment or the platform's `env` table wins."""
    from gwanjong_gateway.platforms.upstreams import Upstreams

    config = parse(config_text(tmp_path, ["devto", "reddit"]))
    chosen = str(tmp_path / "elsewhere.db")
    upstreams = Upstreams(config, environ={"REDDIT_HOLD_FILE": chosen})
    env = {name: u.env for name, u in upstreams.by_name.items()}
    assert env["devto"]["DEVTO_HOLD_FILE"] == str(config.state_dir / "holds" / "devto.db")
    assert env["reddit"]["REDDIT_HOLD_FILE"] == chosen
