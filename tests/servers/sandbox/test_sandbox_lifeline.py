"""A sandbox outlives nothing that started it: killed (a test run interrupted, a worker
lost), the starter cannot stop it, so the sandbox stops itself when its stdin ends."""

from __future__ import annotations

import subprocess
import sys
import time

import httpx
import pytest

from gwanjong_sandbox.control import SandboxControl

pytestmark = pytest.mark.stdio

STARTER = """
import time
from gwanjong_sandbox.control import start_sandbox
with start_sandbox() as sandbox:
    print(sandbox.url, flush=True)
    time.sleep(600)
"""


def answers(url: str) -> bool:
    control = SandboxControl(url)
    try:
        control.health()
    except httpx.TransportError:
        return False
    finally:
        control.close()
    return True


def test_a_sandbox_stops_when_what_started_it_is_killed() -> None:
    starter = subprocess.Popen([sys.executable, "-c", STARTER], stdout=subprocess.PIPE, text=True)
    try:
        assert starter.stdout is not None
        url = starter.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and answers(url)
    finally:
        starter.kill()  # no clean-up code of the starter's runs
        starter.wait(timeout=30)
    deadline = time.monotonic() + 60  # only catches a sandbox that never stops
    while answers(url):
        assert time.monotonic() < deadline, f"the sandbox at {url} outlived its starter"
        time.sleep(0.1)
