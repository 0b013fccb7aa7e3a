"""`gwanjong setup devto` in a real terminal (a pty): the key is typed hidden, saved to a
private `.env`, and the connection is checked against the sandbox."""

from __future__ import annotations

import os
import pty
import select
import sys
import time
from pathlib import Path

import pytest

from gwanjong_sandbox.control import SandboxControl
from tests.config import config_file, config_text

pytestmark = [pytest.mark.e2e, pytest.mark.stdio]
KEY = "sandbox-devto-key"


def read_until(fd: int, needle: bytes, seen: bytearray, seconds: float = 120) -> bool:
    deadline = time.monotonic() + seconds
    while needle not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the child closed the terminal
            return needle in seen
        if not chunk:
            return needle in seen
        seen += chunk
    return True


def setup_in_a_pty(sandbox: SandboxControl, tmp_path: Path, key: str) -> tuple[int, str]:
    """`gwanjong setup devto` in a pty, typing `key`: its exit code and what it printed."""
    env_table = {"DEVTO_BASE_URL": sandbox.url, "DEVTO_TIMEOUT_S": "60"}
    settings = {"call_timeout_s": 60, "start_timeout_s": 90}
    config = config_file(
        tmp_path, ["devto"], settings=settings, others={"devto": {"env": env_table}}
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEVTO_")}
    env.update({"FASTMCP_LOG_LEVEL": "WARNING", "TERM": "dumb"})
    pid, fd = pty.fork()
    if pid == 0:  # the child: a session whose controlling terminal is the pty
        os.execve(
            sys.executable,
            [sys.executable, "-m", "gwanjong_gateway", "--config", str(config), "setup", "devto"],
            env,
        )
    seen = bytearray()
    try:
        assert read_until(fd, b"DEVTO_API_KEY: ", seen), bytes(seen)
        os.write(fd, key.encode() + b"\n")
        assert read_until(fd, b"Check", seen), bytes(seen)
        read_until(fd, b"\n", seen, 10)
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    return os.waitstatus_to_exitcode(status), bytes(seen).decode("utf-8", "replace")


def test_gwanjong_setup_devto_in_a_terminal(sandbox: SandboxControl, tmp_path: Path) -> None:
    code, text = setup_in_a_pty(sandbox, tmp_path, KEY)
    assert code == 0, text
    assert "Check: devto is configured; account: gwanjong_bot; credentials accepted" in text
    assert KEY not in text  # hidden input: the terminal never echoed it
    env_file = tmp_path / "state" / ".env"
    assert env_file.read_text(encoding="utf-8") == f"DEVTO_API_KEY='{KEY}'\n"
    assert env_file.stat().st_mode & 0o777 == 0o600


def test_gwanjong_setup_says_a_wrong_key_was_refused(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    # Dev.to answers a wrong key with 401: setup must not call that "configured"
    code, text = setup_in_a_pty(sandbox, tmp_path, "wrong-devto-key")
    assert code == 1, text
    assert "Check failed: devto refused the credentials (DEVTO_API_KEY)" in text
    assert "Get new ones: " in text and "gwanjong setup devto" in text  # what to do next
    assert "is configured" not in text and "wrong-devto-key" not in text


def test_gwanjong_setup_refuses_a_platform_that_is_not_enabled(tmp_path: Path) -> None:
    from gwanjong_gateway.config import parse
    from gwanjong_gateway.setup.terminal import run_setup

    config = parse(config_text(tmp_path / "state", ["devto"]))
    asked: list[str] = []
    assert run_setup(config, ["myspace"], ask=lambda p: asked.append(p) or "") == 2
    assert not asked and not (tmp_path / "state" / ".env").exists()
