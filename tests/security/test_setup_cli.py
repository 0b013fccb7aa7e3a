"""`gwanjong setup devto` in a real terminal (a pty): the key is typed hidden, saved to a
private `.env`, and the connection is checked against the sandbox."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

from gwanjong_sandbox.control import SandboxControl
from tests.config import config_file, config_text
from tests.terminal import PtyCommand

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.stdio]
KEY = "sandbox-devto-key"


async def setup_in_a_pty(sandbox: SandboxControl, tmp_path: Path, key: str) -> tuple[int, str]:
    """`gwanjong setup devto` in a pty, typing `key`: its exit code and what it printed."""
    env_table = {"DEVTO_BASE_URL": sandbox.url, "DEVTO_TIMEOUT_S": "60"}
    settings = {"call_timeout_s": 60, "start_timeout_s": 90}
    config = config_file(
        tmp_path, ["devto"], settings=settings, others={"devto": {"env": env_table}}
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEVTO_")}
    env.update({"FASTMCP_LOG_LEVEL": "WARNING", "TERM": "dumb"})
    argv = [sys.executable, "-m", "gwanjong_gateway", "--config", str(config), "setup", "devto"]
    with PtyCommand(argv, env) as cmd:
        await cmd.wait_for("DEVTO_API_KEY: ")
        cmd.type(key + "\n")
        return await cmd.exit_code(), cmd.screen() + cmd.errors()


async def test_gwanjong_setup_devto_in_a_terminal(sandbox: SandboxControl, tmp_path: Path) -> None:
    code, text = await setup_in_a_pty(sandbox, tmp_path, KEY)
    assert code == 0, text
    assert "Check: devto is configured; account: gwanjong_bot; credentials accepted" in text
    assert KEY not in text  # hidden input: the terminal never echoed it
    env_file = tmp_path / "state" / ".env"
    assert env_file.read_text(encoding="utf-8") == f"DEVTO_API_KEY='{KEY}'\n"
    assert env_file.stat().st_mode & 0o777 == 0o600


async def test_gwanjong_setup_says_a_wrong_key_was_refused(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    # Dev.to answers a wrong key with 401: setup must not call that "configured"
    code, text = await setup_in_a_pty(sandbox, tmp_path, "wrong-devto-key")
    assert code == 1, text
    assert "Check failed: devto refused the credentials (DEVTO_API_KEY)" in text
    assert "Get new ones: " in text and "gwanjong setup devto" in text  # what to do next
    assert "is configured" not in text and "wrong-devto-key" not in text


async def test_ctrl_c_at_the_hidden_prompt_stops_setup_and_saves_nothing(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    # Ctrl-C, then what a person might type next: it stops at once, nothing is saved
    code, text = await setup_in_a_pty(sandbox, tmp_path, "\x03typed-after-ctrl-c")
    assert code == 130, text
    assert "gwanjong: stopped (Ctrl-C)." in text and "Traceback" not in text
    assert not (tmp_path / "state" / ".env").exists()


def test_gwanjong_setup_refuses_a_platform_that_is_not_enabled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gwanjong_gateway.config import parse
    from gwanjong_gateway.setup.terminal import run_setup

    config = parse(config_text(tmp_path / "state", ["devto"]))
    asked: list[str] = []
    assert run_setup(config, ["myspace"], ask=lambda p: asked.append(p) or "") == 2
    assert "enabled = true in its [platforms.NAME] table" in capsys.readouterr().err
    assert run_setup(config, ["devot"], ask=lambda p: asked.append(p) or "") == 2
    assert (
        "not an enabled platform: devot. Did you mean devto? Enabled: devto"
        in capsys.readouterr().err
    )
    assert not asked and not (tmp_path / "state" / ".env").exists()
    # every answer left empty, nothing saved before: it says what to do next
    out = io.StringIO()
    assert run_setup(config, ["devto"], out, ask=lambda p: asked.append(p) or "") == 1
    assert asked == ["DEVTO_API_KEY: "] and not (tmp_path / "state" / ".env").exists()
    assert "credentials missing" in out.getvalue(), out.getvalue()
    assert "Run `gwanjong setup devto` again and type DEVTO_API_KEY." in out.getvalue()
    # a server that does not start: the terminal's next step, not the model's
    dead = {"devto": {"command": [sys.executable, "-c", "pass"]}}
    config = parse(config_text(tmp_path / "state", ["devto"], others=dead))
    assert (
        run_setup(config, ["devto"], out := io.StringIO(), ask=lambda p: asked.append(p) or "") == 1
    )
    said = "Cannot ask for devto's credentials: its server does not answer (unavailable); "
    assert said + "`gwanjong doctor` shows why.\n" in out.getvalue(), out.getvalue()
    assert asked == ["DEVTO_API_KEY: "]  # nothing asked of a server that is not there
