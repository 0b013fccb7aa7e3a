"""A signal ends the gateway normally even while a worker thread is blocked reading stdin
(MCP's stdio transport reads it in an anyio worker thread that cannot be interrupted)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

SCRIPT = """
import sys, atexit
from fastmcp import FastMCP
from gwanjong_gateway.cli.serve_loop import run_until_signal

atexit.register(lambda: print("atexit ran", flush=True, file=sys.stderr))  # not os._exit

async def serve():
    print("serving", flush=True, file=sys.stderr)
    await FastMCP("t").run_stdio_async(show_banner=False)  # reads stdin in a worker thread
    print("stdin ended", flush=True, file=sys.stderr)

async def stop():
    print("stopped", flush=True, file=sys.stderr)

run_until_signal(serve, stop)
print("returned", flush=True, file=sys.stderr)
"""


def _start() -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "FASTMCP_LOG_LEVEL": "WARNING"},
    )
    assert proc.stderr is not None  # stdout is the MCP wire: the script reports on stderr
    assert proc.stderr.readline().strip() == "serving"
    return proc


@pytest.mark.stdio  # spawns a process
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_and_exits_while_stdin_is_still_open(sig: signal.Signals) -> None:
    proc = _start()
    try:
        time.sleep(0.2)  # let the worker thread block in read(); not a timing assertion
        proc.send_signal(sig)
        proc.wait(timeout=60)  # stdin stays open: generous, the CPU is shared
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.stdout is not None and proc.stderr is not None
    err = proc.stderr.read()
    assert proc.returncode == 0, err
    assert err.split() == ["stopped", "returned", "atexit", "ran"]


@pytest.mark.stdio  # spawns a process
def test_the_end_of_stdin_ends_it_without_stop() -> None:
    proc = _start()
    _out, err = proc.communicate("", timeout=60)
    assert proc.returncode == 0, err
    assert err.split() == ["stdin", "ended", "returned", "atexit", "ran"]
