"""Opening a database file beside a live SQLite connection must keep that connection's
locks. Closing any descriptor of a file releases every POSIX lock the process holds on it
(sqlite.org/howtocorrupt.html, 2.2), and `private_file` (which every `SqliteEngine` calls)
used to open and close the file even when it existed: with the usage log's and the spend
ledger's connections in one process, two processes writing one usage.db lost committed
rows under load."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gwanjong_gateway.paths import private_file

pytestmark = [
    pytest.mark.stdio,  # the other process is a real one
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX advisory locks"),
]

TRY = """
import fcntl, sys
with open(sys.argv[1], "r+b") as f:
    try:
        fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print("held by the other process")
    else:
        print("free")
"""


def test_private_file_on_an_existing_file_keeps_this_process_locks(tmp_path: Path) -> None:
    import fcntl

    path = private_file(tmp_path / "usage.db")
    with path.open("r+b") as held:
        fcntl.lockf(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a SQLite connection holds one
        private_file(path)  # as a second SqliteEngine on the same file does
        other = subprocess.run(
            [sys.executable, "-c", TRY, str(path)], capture_output=True, text=True, timeout=60
        )
    assert other.stdout.strip() == "held by the other process", other.stdout + other.stderr
