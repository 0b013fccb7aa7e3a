"""Where config and state live (legacy places first), the state dir 0700 and the record
files 0600, the portable lock, and a missing psycopg reported as what to install."""

from __future__ import annotations

import logging
import stat
import sys
from pathlib import Path

import pytest

from gwanjong_gateway import paths
from gwanjong_gateway.cli.logfile import add_log_file
from gwanjong_gateway.config import parse
from gwanjong_gateway.config.load import locate
from gwanjong_gateway.extras import MissingExtra, require_psycopg
from gwanjong_gateway.platforms import childlog
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.scout.inbox import Cursors
from gwanjong_gateway.team.access_tokens import store_for
from gwanjong_gateway.usage.log import UsageLog
from gwanjong_shared.contract.errors import ErrorKind, PlatformError


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    return home


def test_state_dir_is_the_os_one_unless_legacy_exists(home: Path) -> None:
    config = parse("[gateway]\n")
    if sys.platform not in ("win32", "darwin"):
        assert config.state_dir == home / "data" / "gwanjong"
    (home / ".gwanjong").mkdir()
    assert config.state_dir == home / ".gwanjong"  # an older install's records are kept
    assert parse('[gateway]\nstate_dir = "~/elsewhere"\n').state_dir == home / "elsewhere"


def test_user_config_prefers_the_legacy_file(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GWANJONG_CONFIG", raising=False)
    assert locate() is None
    legacy = paths.legacy_config_file()
    assert legacy == home / "config" / "gwanjong" / "gateway.toml"
    legacy.parent.mkdir(parents=True)
    legacy.write_text("[gateway]\n", encoding="utf-8")
    assert locate() == legacy == paths.user_config_file()


@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no POSIX modes")
def test_state_dir_0700_and_record_files_0600(tmp_path: Path) -> None:
    state = tmp_path / "new" / "state"
    config = parse(f'[gateway]\nstate_dir = "{state.as_posix()}"\nlog_file = "gateway.log"\n')
    record = StrikeStore(config.state_dir / "gwanjong.db")  # open: its -wal file exists
    usage = UsageLog(config.state_dir / "usage.db")
    usage._connect()  # creates the file, as the first recorded call does
    usage.close()
    Cursors(config.state_dir / "inbox.json").set("devto", "c1")
    childlog.reset(childlog.log_path(config.state_dir, "devto"))
    log_file = add_log_file(config)
    assert log_file is not None
    try:
        logging.getLogger("test_paths").warning("written")
    finally:
        for handler in logging.getLogger().handlers[:]:
            if getattr(handler, "baseFilename", None) == str(log_file):
                handler.close()
                logging.getLogger().removeHandler(handler)
    store_for(config.state_dir).add("alice")

    assert mode(state) == 0o700 and mode(state.parent) == 0o700
    assert mode(state / "logs") == 0o700
    files = [p for p in state.rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert {"gwanjong.db", "usage.db", "inbox.json", "devto.log", "gateway.log"} <= names
    assert {"tokens.json", "gwanjong.db-wal"} <= names, names
    loose = {p.name: oct(mode(p)) for p in files if mode(p) != 0o600}
    record.close()
    assert not loose, loose


def test_exclusive_lock_is_held_and_released(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    with paths.exclusive_lock(lock):
        assert lock.exists()
    with paths.exclusive_lock(lock):  # released: taken again at once
        pass


@pytest.mark.anyio
async def test_records_without_psycopg_answer_unavailable_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg -> ImportError
    with pytest.raises(MissingExtra, match=r"gwanjong\[postgres\]"):
        require_psycopg()
    records = Records(tmp_path / "gwanjong.db", url="postgresql://u@127.0.0.1:9/x", environ={})
    answers = []
    for _ in range(2):
        with pytest.raises(PlatformError) as caught:
            await records.run(StrikeStore.paused, "devto")
        assert caught.value.kind is ErrorKind.UNAVAILABLE
        answers.append(str(caught.value))
    assert answers[0] == answers[1] and "pip install 'gwanjong[postgres]'" in answers[0]
    assert sum("is not installed" in r.getMessage() for r in caplog.records) == 1
