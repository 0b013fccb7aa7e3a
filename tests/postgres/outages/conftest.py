"""These tests stop and freeze PostgreSQL itself, so they get a server of their own
(`scripts/pg`, one per test process): on the shared one they would cut every other test's
database mid-query (the suite runs on parallel workers, and a developer's own tests may be
using it too)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "pg"


@pytest.fixture(scope="session")
def pg_server(pg_server: str) -> Iterator[str]:
    """A new throwaway server, once the shared one is known to be there (the parent fixture
    says what to do if it is not). Its folder is `GWANJONG_PG_DIR` for `faults` meanwhile."""
    del pg_server  # asked for only for its check
    started = subprocess.run(
        ["bash", str(SCRIPT), "start"], capture_output=True, text=True, timeout=300, check=False
    )
    if started.returncode != 0:
        pytest.fail(f"scripts/pg could not start a server:\n{started.stderr}", pytrace=False)
    exported = dict(
        line.removeprefix("export ").split("=", 1)
        for line in started.stdout.splitlines()
        if line.startswith("export ")
    )
    before = os.environ.get("GWANJONG_PG_DIR")
    os.environ["GWANJONG_PG_DIR"] = exported["GWANJONG_PG_DIR"]
    try:
        yield exported["GWANJONG_TEST_PG_URL"]
    finally:
        if before is None:
            os.environ.pop("GWANJONG_PG_DIR", None)
        else:
            os.environ["GWANJONG_PG_DIR"] = before
        subprocess.run(
            ["bash", str(SCRIPT), "stop", exported["GWANJONG_PG_DIR"]], timeout=120, check=False
        )
