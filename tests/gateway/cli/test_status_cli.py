"""`gwanjong status` from the record alone: what waits (counts, oldest, first expiry),
each platform's write health, the write mode, the last notification and its delivery
error, with no URL secret; and bare `gwanjong` at a terminal says what it is and how to
start, while with stdin a pipe it stays an MCP server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import anyio
import pytest

from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus
from tests.gateway.helpers import config_file, exit_code
from tests.gateway.notify.records import BODY, hand_off, open_approval
from tests.gateway.rows import strike_row

GWANJONG = str(Path(sys.executable).with_name("gwanjong"))


def bare_env(tmp_path: Path) -> dict[str, str]:
    """The environment bare `gwanjong` runs in: a confirm-mode config, a hook to notify."""
    config = config_file(tmp_path, THREE, "confirm", tables=NOTIFY)
    return {**os.environ, "GWANJONG_CONFIG": str(config), "HOOK": "json://x"}


NOTIFY = {"notify": {"urls": ["${HOOK}", "ntfys://tok3n@ntfy.example.com/topic"]}}
THREE = ["devto", "bluesky", "reddit"]


def test_status_says_what_waits_health_and_the_last_notification(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    urls = ["${HOOK}", "${HOOK}/x?token=tok3n", *NOTIFY["notify"]["urls"][1:]]
    config = config_file(tmp_path, THREE, "confirm", tables={"notify": {"urls": urls}})
    now = time.time()
    (tmp_path / "state").mkdir()
    with closing(StrikeStore(tmp_path / "state" / "gwanjong.db")) as store:
        open_approval(store, "p1", now - 3 * 3600, expires_in=5 * 3600)
        open_approval(store, "p2", now - 60)
        hand_off(store, "q1", now - 7200)
        hand_off(store, "q0", now - 8 * 86400)  # expired (7 days), not swept yet
        unsure = {"status": StrikeStatus.UNKNOWN, "needs_person": True, "created_at": now - 3600}
        strike_row(store, intent_key="k1", **unsure)
        for _ in range(3):
            store.record_failure("bluesky", "unavailable", pause_after=3)
        store.record_failure("reddit", "timeout", pause_after=3)
        store.claim_notices(["period:1"], now - 600, "me")
        store.note_message(
            "period:1", "2 approvals waiting", now - 600, "ntfys://ntfy.example.com: gave up: x"
        )
    assert exit_code(["status", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("writes: confirm\nwaiting for you:\n")
    assert "  2 approvals (oldest 3 h ago; the first expires in 1 h)" in out
    assert "  1 hand-offs to post by hand (oldest 2 h ago)" in out
    settle = "`gwanjong history --resolve`, or the console's /history?status=unknown"
    assert f"  1 unsure writes for you to settle (oldest 60 min ago): {settle}" in out
    assert "  devto: no write recorded yet" in out
    assert "  bluesky: writes PAUSED (3 write failures in a row; last: unavailable)" in out
    assert "  reddit: 1 write failures in a row, last 0 s ago" in out
    at = "${HOOK}, ${HOOK}…, ntfys://ntfy.example.com"  # what follows a variable is masked
    assert f"notifications: to {at}, at most every 300 s" in out
    assert "  last sent 10 min ago: 2 approvals waiting" in out
    assert "  delivery error: ntfys://ntfy.example.com: gave up: x" in out
    assert "tok3n" not in out and BODY not in out


@pytest.mark.parametrize(
    ("age", "said"),
    [(5, " is being sent"), (600, ", 10 min ago, was never confirmed sent: the gateway stopped")],
)
def test_a_message_left_unsent_by_a_stopped_gateway_is_not_being_sent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], age: float, said: str
) -> None:
    config = config_file(tmp_path, ["devto"], tables=NOTIFY)
    (tmp_path / "state").mkdir()
    with closing(StrikeStore(tmp_path / "state" / "gwanjong.db")) as store:
        store.claim_notices(["period:1"], time.time() - age, "me")
        store.note_message("period:1", "1 approvals waiting", 0.0, "")
    assert exit_code(["status", "--config", str(config)]) == 0
    assert f"  last one (1 approvals waiting){said}" in capsys.readouterr().out


def test_status_with_nothing_recorded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = config_file(tmp_path, ["devto"])
    assert exit_code(["status", "--config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "waiting for you:\n  nothing\n" in out
    assert "notifications: off (set [notify] urls in gateway.toml)" in out


@pytest.mark.anyio
async def test_the_status_tool_carries_the_last_notification(tmp_path: Path) -> None:
    from fastmcp import Client

    from tests.fakes.platform import FakePlatform
    from tests.fakes.profiles import SOCIAL
    from tests.gateway.helpers import gateway_of
    from tests.mcp import call

    sent_at = 1_800_000_000.0
    with closing(StrikeStore(tmp_path / "gwanjong.db")) as store:
        store.claim_notices(["period:1"], sent_at, "me")
        store.note_message(
            "period:1", "2 approvals waiting", sent_at, "ntfys://ntfy.example.com: gave up: x"
        )
    tables = {"notify": {"urls": ["ntfys://tok3n@ntfy.example.com/topic"]}}
    _, mcp = gateway_of(tmp_path, FakePlatform(SOCIAL), tables=tables)
    async with Client(mcp) as client:
        status = await call(client, "status")
    assert status["notified"] == {
        "last": "2 approvals waiting",
        "sent_at": "2027-01-15T08:00:00Z",
        "error": "ntfys://ntfy.example.com: gave up: x",
    }
    assert "tok3n" not in json.dumps(status)
    # in team mode the message counts everyone's: a member's status leaves it out
    from gwanjong_gateway.record.readers import EVERYONE, Reader
    from gwanjong_gateway.record.records import health_of

    with closing(StrikeStore(tmp_path / "gwanjong.db")) as store:
        assert health_of(store, [], EVERYONE)["notified"] is not None
        assert health_of(store, [], Reader.only("member"))["notified"] is None


# -- the real console script ---------------------------------------------------------------


@pytest.mark.stdio
def test_status_imports_no_mcp_sdk(tmp_path: Path) -> None:
    config = config_file(tmp_path, THREE, "confirm", tables=NOTIFY)
    probe = (
        "import sys; from gwanjong_gateway.cli.main import main\n"
        "try:\n    main(['status', '--config', sys.argv[1]])\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('fastmcp', 'mcp', 'httpx', 'atproto', 'tweepy', 'asyncpraw', 'apprise')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(config)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


@pytest.mark.stdio
@pytest.mark.anyio
@pytest.mark.skipif(sys.platform == "win32", reason="a pty is a POSIX terminal")
async def test_bare_gwanjong_at_a_terminal_says_how_to_start(tmp_path: Path) -> None:
    from tests.terminal import PtyCommand

    env = bare_env(tmp_path)
    with PtyCommand([GWANJONG], env=env) as cmd:
        code = await cmd.exit_code()
        screen = cmd.screen()
    assert code == 0
    for start in ("gwanjong demo", "gwanjong init", "gwanjong link", "gwanjong status"):
        assert start in screen
    assert "stdin as a pipe" in screen


@pytest.mark.stdio
@pytest.mark.anyio
async def test_bare_gwanjong_with_stdin_a_pipe_serves_mcp(tmp_path: Path) -> None:
    env = bare_env(tmp_path)
    client = {"name": "t", "version": "1"}
    params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
    done = await anyio.to_thread.run_sync(
        lambda: subprocess.run(
            [GWANJONG],
            input=json.dumps(hello) + "\n",
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
    )
    first = json.loads(done.stdout.splitlines()[0])
    assert first["id"] == 1 and first["result"]["serverInfo"]["name"] == "gwanjong"
    assert "gwanjong demo" not in done.stdout
