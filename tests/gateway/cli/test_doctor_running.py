"""`gwanjong doctor`, "what am I running?": on one screen, the config file and why it is
the one, the state folder, the record's engine and database (never its password), the
versions, and each platform's server, started as the gateway would start it, with what is
wrong with it (credentials missing by name, the platform unreachable, not startable).
No secret is ever printed, whatever holds it.
"""

from __future__ import annotations

import io
import json
import os
import platform
from importlib.metadata import version
from pathlib import Path

import pytest

from gwanjong_gateway.cli.doctor.doctor_command import run_doctor
from gwanjong_gateway.cli.doctor.where import config_source
from gwanjong_gateway.config.load import load
from tests.gateway.helpers import config_file

PG_PASSWORD = "planted-pg-password-7Q"
DEVTO_KEY = "planted-devto-key-3Z"
UNREACHABLE = "http://127.0.0.1:9"  # the discard port: nothing listens, refused at once


@pytest.fixture(autouse=True)
def _no_platform_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("DEVTO_", "BLUESKY_", "TWITTER_", "REDDIT_", "GWANJONG_CONFIG")):
            monkeypatch.delenv(name)


def doctor(path: Path, start_servers: bool = True) -> tuple[int, str, str]:
    config, found = load(str(path), check_env=False)
    out, err = io.StringIO(), io.StringIO()
    code = run_doctor(
        config,
        found,
        out=out,
        err=err,
        source=config_source(found, str(path), {}),
        start_servers=start_servers,
    )
    return code, out.getvalue(), err.getvalue()


def test_one_screen_says_what_runs_and_never_a_secret(tmp_path: Path) -> None:
    store = {"url": f"postgresql://gw:{PG_PASSWORD}@127.0.0.1:9/gwrecord", "connect_timeout_s": 1}
    others: dict[str, dict[str, object]] = {
        "devto": {"env": {"DEVTO_BASE_URL": UNREACHABLE}},
        "bluesky": {"enabled": False},
        "forum": {"url": f"{UNREACHABLE}/mcp"},  # a server that does not start
    }
    path = config_file(tmp_path, [], tables={"store": store}, others=others)
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / ".env").write_text(f"DEVTO_API_KEY={DEVTO_KEY}\n", encoding="utf-8")
    code, out, err = doctor(path)
    assert code == 1  # the record cannot be reached, nor dev.to
    lines = out.splitlines()
    assert len(lines) <= 24, out  # one screen
    assert f"config     {path} (from --config)" in out
    assert f"state_dir  {tmp_path / 'state'} (state_dir in gateway.toml; writable" in out
    assert "record     postgresql 127.0.0.1:9, database gwrecord: unreachable" in out
    assert (
        f"versions   gwanjong {version('gwanjong')}, python {platform.python_version()}, "
        f"mcp {version('mcp')}, fastmcp {version('fastmcp')}"
    ) in out
    devto = next(line for line in lines if line.strip().startswith("devto"))
    assert "on  bundled gwanjong-devto" in devto and "(in-process)" in devto
    assert "platform unreachable" in devto  # its key is set: it asked dev.to (here: nobody)
    bluesky = next(line for line in lines if line.strip().startswith("bluesky"))
    assert "off bundled gwanjong-bluesky" in bluesky and "credentials" not in bluesky
    assert "platforms.devto: platform unreachable" in out
    forum = next(line for line in lines if line.strip().startswith("forum"))
    assert "url http://127.0.0.1:9" in forum and "not startable: unavailable" in forum
    assert "platforms.forum: not startable" in out
    for secret in (PG_PASSWORD, DEVTO_KEY):
        assert secret not in out and secret not in err


def test_a_missing_key_is_named_with_what_to_do_unless_offline(tmp_path: Path) -> None:
    path = config_file(tmp_path, ["devto"])
    code, out, err = doctor(path)
    assert code == 1
    assert "credentials missing: DEVTO_API_KEY" in out
    assert "platforms.devto: credentials missing (DEVTO_API_KEY): run `gwanjong setup devto`" in out
    assert err.startswith("gwanjong doctor: platforms.devto: credentials missing")
    assert "record     sqlite" in out and "missing (created on first use)" in out
    code, out, _ = doctor(path, start_servers=False)  # offline: no server is started
    assert code == 0
    assert "platforms (servers not started)" in out
    assert "credentials" not in out


def test_why_this_config_file(tmp_path: Path) -> None:
    user = tmp_path / "gateway.toml"
    assert config_source(user, str(user), {}).endswith("(from --config)")
    assert config_source(user, None, {"GWANJONG_CONFIG": str(user)}).endswith(
        "(from $GWANJONG_CONFIG)"
    )
    local = config_source(Path("gateway.toml"), None, {})
    assert local == f"{Path('gateway.toml').absolute()} (./gateway.toml in the current folder)"
    assert config_source(user, None, {}) == f"{user} (the user config file)"
    assert config_source(None, None, {}).startswith("none found: the defaults")


def repair(config: Path, export: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_doctor(load(str(config))[0], config, fix=True, export_to=export, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_repair_never_replaces_a_file_at_the_export_path(tmp_path: Path) -> None:
    path = config_file(tmp_path, [])
    mine = tmp_path / "notes.json"
    mine.write_text("keep me", encoding="utf-8")
    code, _, said = repair(path, mine)
    assert code == 1
    assert f"{mine} already exists" in said and "another --export path" in said, said
    assert "nothing was changed" in said and len(said.splitlines()) == 1, said
    assert mine.read_text(encoding="utf-8") == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gateway.toml", "notes.json"]
    fresh = tmp_path / "fresh.json"
    code, out, err = repair(path, fresh)
    assert code == 0, err
    assert f"to {fresh}" in out, out
    assert json.loads(fresh.read_text(encoding="utf-8"))["strikes"] == []
