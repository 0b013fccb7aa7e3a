"""The CLI's first-run pieces: init, --config after the subcommand, history at 80 columns
and on each record engine, usage, and the rotating log file."""

from __future__ import annotations

import io
import json
import logging
from contextlib import closing
from pathlib import Path

import pytest

from gwanjong_gateway.cli.demo import _where
from gwanjong_gateway.cli.history import print_history, resolve
from gwanjong_gateway.cli.init import STARTER, launch_command, run_init
from gwanjong_gateway.cli.logfile import add_log_file
from gwanjong_gateway.config import parse
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_gateway.strike.results import Handoff
from gwanjong_gateway.usage.log import UsageLog
from gwanjong_shared.kit.logs import register_secret
from tests.gateway.helpers import config_file, config_text, exit_code
from tests.gateway.rows import claim_of, strike_row


def test_init_writes_a_starter_and_refuses_to_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "conf" / "gateway.toml"
    out, err = io.StringIO(), io.StringIO()
    assert run_init(target, out, err) == 0
    text = target.read_text(encoding="utf-8")
    config = parse(text)
    assert config.gateway.writes == "dry-run"
    every = {"devto", "bluesky", "twitter", "reddit", "mastodon", "hackernews"}
    assert set(config.enabled()) == every
    assert text.count("#") > 10  # commented
    printed = out.getvalue()
    for client in ("Claude Desktop", "Cursor", "Claude Code"):
        assert client in printed
    command = launch_command(target.absolute())
    assert Path(command[0]).is_absolute() and command[-2:] == ["--config", str(target)]
    snippet = printed[printed.index("{") : printed.index("\n}\n") + 2]
    entry = json.loads(snippet)["mcpServers"]["gwanjong"]
    assert [entry["command"], *entry["args"]] == command
    assert "claude mcp add gwanjong -- " in printed
    # the next steps, with the file it wrote (not where the commands look by default)
    assert f"`gwanjong setup --config {target}`" in printed
    assert f"`gwanjong link --config {target}`" in printed
    # a second init leaves the file alone
    target.write_text("# mine\n", encoding="utf-8")
    assert run_init(target, io.StringIO(), err) == 1
    assert "not overwriting" in err.getvalue()
    assert target.read_text(encoding="utf-8") == "# mine\n"
    # a path it cannot write is said so, not a traceback (here its folder is a file)
    assert run_init(target / "gateway.toml", io.StringIO(), err) == 1
    assert "cannot write" in err.getvalue() and "Pass another path" in err.getvalue()
    # without a path: the user config folder
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    assert run_init(None, io.StringIO(), io.StringIO(), environ=env) == 0
    assert (tmp_path / "gwanjong" / "gateway.toml").read_text(encoding="utf-8") == STARTER


def test_history_cli_with_config_after(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = config_file(tmp_path, [])
    assert exit_code(["history", "--config", str(cfg)]) == 0
    assert "No strikes recorded yet" in capsys.readouterr().out
    assert exit_code(["history", "--config", str(tmp_path / "missing.toml")]) == 2
    with closing(StrikeStore(tmp_path / "state" / "gwanjong.db")) as store:
        strike_row(store, platform="reddit")
    capsys.readouterr()
    assert exit_code(["history", "--platform", "Reddit", "--json", "--config", str(cfg)]) == 0
    assert json.loads(capsys.readouterr().out)[0]["platform"] == "reddit"  # any case
    assert exit_code(["history", "--platform", "redit", "--config", str(cfg)]) == 2
    assert "Did you mean reddit?" in capsys.readouterr().err
    assert exit_code(["demo", "--platforms", "devto", "devot"]) == 2  # before any sandbox
    assert "'devot'. Did you mean devto?" in capsys.readouterr().err


def test_history_fits_80_columns(tmp_path: Path) -> None:
    store = StrikeStore(tmp_path / "gwanjong.db")
    strike_row(
        store,
        intent_key="k1",
        platform="bluesky",
        target="at://did:plc:abc/app.bsky.feed.post/3k",
        target_url="https://bsky.app/profile/ferris.dev/post/3kabc",
        content="text",
        status="refused",
        approver="auto",
        reason="Bluesky asks bots to reply only where they were tagged; this post does not "
        "mention our account, so the reply was handed to a person instead of being posted. " * 2,
    )
    strike_row(
        store,
        intent_key="k2",
        target="1002",
        action="post",
        content_hash="h2",
        content="text",
        status="posted",
        result_url="https://dev.to/sandbox/cancellation-safe-handlers-1",
    )
    store.close()
    config = parse(config_text(tmp_path, []))
    out = io.StringIO()  # a pipe: not a terminal
    assert print_history(config, None, None, 10, as_json=False, out=out) == 0
    lines = out.getvalue().splitlines()[2:]  # after the header and the file's path
    assert lines[0].startswith("#2 ") and "devto" in lines[0] and "posted" in lines[0]
    assert any("cancellation-safe-handlers-1" in line for line in lines)
    assert any(" comment " in line and "refused (auto)" in line for line in lines)
    assert any("mention our account" in line for line in lines)
    assert all(len(line) <= 80 for line in lines), "\n".join(lines)
    narrow = io.StringIO()
    print_history(config, None, None, 10, as_json=False, out=narrow, width=200)
    assert max(len(line) for line in narrow.getvalue().splitlines()[2:]) <= 120
    filters = {("devto", None): ("devto", "posted"), (None, "refused"): ("bluesky", "refused")}
    for (platform, status), only in filters.items():  # by platform, or by status
        out = io.StringIO()
        print_history(config, platform, status, 10, as_json=True, out=out)
        assert [(r["platform"], r["status"]) for r in json.loads(out.getvalue())] == [only]


def test_history_and_resolve_use_the_configured_record(
    tmp_path: Path, store_url: str, record: StrikeStore
) -> None:
    """On each engine (`record`): `history --resolve` and `history` read the configured one."""
    tables = {"store": {"url": store_url}} if store_url else None
    config = parse(config_text(tmp_path, ["devto"], tables=tables))
    row = record.insert(**{**claim_of("t1").row, "status": StrikeStatus.UNKNOWN}, now=1.0)
    assert resolve(config, row.id, "posted") == 0
    out = io.StringIO()
    assert print_history(config, None, None, 10, as_json=True, out=out) == 0
    (shown,) = json.loads(out.getvalue())
    assert (shown["record"], shown["status"], shown["by"]) == (row.id, "posted", "alice")
    out = io.StringIO()
    print_history(config, None, None, 10, as_json=False, out=out)
    assert "by alice" in out.getvalue()
    where = store_url.split("@")[1] if store_url else str(tmp_path / "gwanjong.db")
    assert where in out.getvalue()  # names the record it read
    assert (tmp_path / "gwanjong.db").exists() == (not store_url)  # no SQLite beside PostgreSQL


def test_history_on_a_busy_record_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # SQLite's own error reached the person as a traceback ("database is locked")
    cfg = config_file(tmp_path, ["devto"], tables={"store": {"lock_timeout_s": 0.1}})
    (tmp_path / "state").mkdir()
    store = StrikeStore(tmp_path / "state" / "gwanjong.db")
    store.engine.x("BEGIN IMMEDIATE")  # a gateway mid-claim, past the lock timeout
    assert exit_code(["history", "--config", str(cfg)]) == 2
    assert exit_code(["history", "--resolve", "1", "--as", "failed", "--config", str(cfg)]) == 2
    store.engine.x("ROLLBACK")
    store.close()
    busy, busy_again = capsys.readouterr().err.splitlines()
    assert busy == busy_again and "strike record is busy" in busy, busy


def test_usage_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = config_file(tmp_path, [])
    log = UsageLog(tmp_path / "state" / "usage.db", count_tokens=len)
    log.record_platform("reddit", "search", "", 0.05)
    log.record_platform(
        "reddit",
        "search",
        "rate_limited",
        0.02,
        message="Reddit is throttling us. Wait, then retry.",
        retry_after=30,
    )
    log.record_gateway("scout", "", 0.2, "x" * 100)
    log.close()
    assert exit_code(["usage", "--config", str(cfg), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    reddit = report["platform_tools"][0]
    assert reddit["calls"] == 2 and reddit["errors"] == {"rate_limited": 1}
    assert report["gateway_tools"][0]["tokens"] == 100
    assert exit_code(["usage", "--config", str(cfg), "--since", "1h"]) == 0
    text = capsys.readouterr().out
    assert "rate_limited=1" in text and "scout" in text
    assert all(len(line) <= 80 for line in text.splitlines())
    assert exit_code(["usage", "--config", str(cfg), "--since", "soon"]) == 2


def test_rotating_log_file_in_the_state_dir(tmp_path: Path) -> None:
    config = parse(config_text(tmp_path, [], settings={"log_file": "logs/gw.log"}))
    path = add_log_file(config, max_bytes=400, backups=2)
    assert path == tmp_path / "logs" / "gw.log"
    root = logging.getLogger()
    handler = root.handlers[-1]
    level = root.level
    root.setLevel(logging.INFO)
    register_secret("s3cr3t-token-value")
    try:
        for i in range(40):
            logging.getLogger("gwanjong.test").info("line %d with s3cr3t-token-value", i)
    finally:
        root.removeHandler(handler)
        handler.close()
        root.setLevel(level)
    files = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert files == ["gw.log", "gw.log.1", "gw.log.2"]
    text = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "logs").iterdir())
    assert "line 39 with ***" in text and "s3cr3t" not in text
    assert add_log_file(parse('[gateway]\nstate_dir = "/tmp"\n')) is None


def test_the_log_file_writes_a_message_on_one_line_its_controls_escaped(tmp_path: Path) -> None:
    """The log file is the stderr line: platform text in a message cannot forge a line or
    leave an escape sequence for whoever reads the file on a terminal."""
    config = parse(config_text(tmp_path, [], settings={"log_file": "gw.log"}))
    path = add_log_file(config)
    assert path is not None
    root = logging.getLogger()
    handler = root.handlers[-1]
    try:
        logging.getLogger("gwanjong.test").warning("said: x\nWARNING forged\x1b]52;c;aGk=\x07")
    finally:
        root.removeHandler(handler)
        handler.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 and lines[0].endswith("said: x\\nWARNING forged\\x1b]52;c;aGk=\\x07"), (
        lines
    )


@pytest.mark.anyio
@pytest.mark.parametrize("isolation", ["in-process", "process"])
async def test_a_missing_bundled_server_is_down_with_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolation: str
) -> None:
    import sys

    from gwanjong_gateway.platforms.upstreams import Upstreams

    # as if gwanjong had been installed without its platform server packages
    for module in [m for m in sys.modules if m.startswith("gwanjong_reddit")] + ["gwanjong_reddit"]:
        monkeypatch.setitem(sys.modules, module, None)
    config = parse(
        f'[gateway]\nstate_dir = "{tmp_path.as_posix()}"\n'
        f'[platforms.reddit]\nisolation = "{isolation}"\n'
    )
    upstreams = Upstreams(config, environ={})
    assert await upstreams.by_name["reddit"].ensure() is None
    health = upstreams.health()["reddit"]
    assert health["health"] == "down"
    assert "gwanjong-reddit" in health["reason"] and "not installed" in health["reason"]


def test_the_demo_draws_a_hand_off_link_with_its_host_and_no_markup() -> None:
    """The demo prints where a person posts as every surface does: a link past a user part
    names its real host, and its brackets are text, not terminal markup."""
    handoff = Handoff(reason="", open="https://dev.to@evil.example/[b]x", record=1, next="")
    assert _where(handoff) == r"https://dev.to@evil.example/\[b]x (host evil.example)"
