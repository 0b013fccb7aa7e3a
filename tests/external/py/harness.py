"""Running a client driver (tests/external/py/drive_*.py) with its own virtualenv's python
against a gateway this test starts: over stdio (the driver's library spawns the gateway)
or over streamable HTTP (a `gwanjong --transport http` process on a loopback port)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from gwanjong_gateway.record.rows.handle_rows import HandleRow
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import Strike
from gwanjong_gateway.scout.handles import handle_hash
from gwanjong_gateway.team.access_tokens import store_for
from gwanjong_sandbox.control import SandboxControl
from tests.config import config_file
from tests.external.py.flow import BODY, TITLE  # what the drivers' strike sends

HERE = Path(__file__).resolve().parent
COUNTED = HERE / "counted.py"


def write_config(tmp: Path, sandbox: SandboxControl, auth: dict[str, Any] | None = None) -> Path:
    """devto over the sandbox. No `writes` key: the default, "dry-run", is what is tested."""
    settings = {"call_timeout_s": 30, "start_timeout_s": 60}
    tables = {"auth": auth} if auth else None
    return config_file(tmp, ["devto"], None, settings, tables, sandbox=sandbox.url)


def tokens(tmp: Path, *users: str) -> dict[str, str]:
    """A bearer token for each user, in the team token file the gateway reads."""
    store = store_for(tmp / "state")
    return {user: store.add(user) for user in users}


def stdio_command(config: Path, tally: Path | None = None) -> list[str]:
    """The gateway's command line; with ``tally``, each start appends a line to that file."""
    line = [sys.executable, "-m", "gwanjong_gateway", "--config", str(config)]
    return [sys.executable, str(COUNTED), str(tally), *line] if tally else line


def starts(tally: Path) -> int:
    return len(tally.read_text(encoding="utf-8").split()) if tally.exists() else 0


def drive(python: Path, driver: str, *args: str, timeout: float = 600) -> dict[str, Any]:
    """Run ``driver`` with ``python``; its report is the last line of its stdout.
    The timeout is generous: it only catches a hang (stdio clients start a gateway per call)."""
    proc = subprocess.run(
        [str(python), str(HERE / driver), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=HERE,
        check=False,
    )
    err = (
        proc.stderr
        if len(proc.stderr) < 8000
        else proc.stderr[:3000] + "\n...\n" + proc.stderr[-5000:]
    )
    assert proc.returncode == 0, f"{driver} exited {proc.returncode}:\n{err}"
    lines = proc.stdout.strip().splitlines()
    assert lines, f"{driver} printed no report:\n{proc.stderr[-4000:]}"
    report: dict[str, Any] = json.loads(lines[-1])
    return report


def record(tmp: Path, number: int) -> Strike:
    """The strike record's row `number` (the SQLite record in the state dir)."""
    store = StrikeStore(tmp / "state" / "gwanjong.db")
    try:
        rows = [r for r in store.history(limit=1000) if r.id == number]
    finally:
        store.close()
    assert len(rows) == 1, f"no record {number}"
    return rows[0]


def handle_row(tmp: Path, handle: str, principal: str = "") -> HandleRow | None:
    """What the record keeps for ``handle`` (under its SHA-256) for ``principal``."""
    store = StrikeStore(tmp / "state" / "gwanjong.db")
    try:
        return store.handle(handle_hash(handle), principal, now=0.0)  # any expiry is later
    finally:
        store.close()


def assert_dry_run_flow(report: dict[str, Any], tmp: Path, sandbox: SandboxControl) -> str:
    """scout -> draft -> strike went through on scout's handle and ended as a dry run that
    wrote nothing; answers the handle."""
    scouted = report.get("scout", {})
    assert "error" not in scouted, scouted
    handle = report["handle"]
    first = scouted["opportunities"][0]
    assert first["id"] == handle and first["platform"] == "devto", first
    draft = report["draft"]
    assert "error" not in draft, f"draft on scout's handle {handle!r} failed: {draft}"
    assert draft["opportunity_id"] == handle, draft
    assert (draft["url"], draft["title"]) == (first["url"], first["title"]), (draft, first)
    strike = report["strike"]
    assert "error" not in strike, f"strike on {handle!r} failed: {strike}"
    assert strike["status"] == "dry_run", strike
    arguments = strike["would"]["arguments"]
    assert arguments["title"] == TITLE and arguments["body"].startswith(BODY), strike
    # The handle is the server's (not the post's stable id), draft kept its context on that
    # handle, and the strike's record row is that handle's opportunity.
    assert re.fullmatch(r"devto-[A-Za-z0-9_-]{16}", handle), handle
    kept = handle_row(tmp, handle)
    assert kept is not None and kept.drafted is not None, kept
    row = record(tmp, strike["record"])
    assert (row.opportunity, str(row.status)) == (kept.opportunity, "dry_run"), row.public()
    assert row.opportunity != handle
    assert sandbox.writes() == []
    return str(handle)
