"""usage.db on its own file: one made by the code before the numbered migration steps
opens and is migrated (two processes writing it together: test_usage_processes.py)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from gwanjong_gateway.record.sql import migrations
from gwanjong_gateway.usage.log import UsageLog
from gwanjong_gateway.usage.spend_ledger import SpendLedger
from tests.gateway.helpers import config_text, exit_code
from tests.gateway.usage.test_usage import row

#: usage.db as the code before the numbered steps made it: usage/log.py's SCHEMA, the
#: columns it added on open, and usage/spend_ledger.py's SCHEMA
OLD_USAGE_DB = """
CREATE TABLE IF NOT EXISTS calls (
    at REAL NOT NULL,
    scope TEXT NOT NULL,          -- 'platform' | 'gateway'
    platform TEXT NOT NULL,       -- '' for gateway tools
    tool TEXT NOT NULL,
    kind TEXT NOT NULL,           -- '' on success, else the error kind
    ms REAL NOT NULL,
    tokens INTEGER,               -- gateway tools: o200k tokens of the result
    retry_after REAL,             -- rate_limited: what the platform asked for
    message TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS calls_at ON calls (at);
ALTER TABLE calls ADD COLUMN rl_remaining INTEGER;
ALTER TABLE calls ADD COLUMN rl_limit INTEGER;
ALTER TABLE calls ADD COLUMN rl_reset TEXT;
ALTER TABLE calls ADD COLUMN principal TEXT NOT NULL DEFAULT '';
CREATE TABLE IF NOT EXISTS spend (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    at         REAL NOT NULL,
    platform   TEXT NOT NULL,
    tool       TEXT NOT NULL,
    principal  TEXT NOT NULL DEFAULT '',
    micros     INTEGER NOT NULL,   -- reserved while running, the true cost once settled
    settled    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS spend_day ON spend (platform, at);
"""


def test_a_usage_file_from_before_the_migration_steps_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "usage.db"
    now = time.time()
    with sqlite3.connect(path) as old:
        old.executescript(OLD_USAGE_DB)
        old.execute(
            "INSERT INTO calls VALUES (?, 'platform', 'devto', 'search', '', 5, NULL, NULL, '',"
            " 7, 100, 'soon', 'alice')",
            (now,),
        )
        old.execute(
            "INSERT INTO spend (at, platform, tool, micros) VALUES (?, 'devto', 'read', 40)", (now,)
        )
    old.close()
    log = UsageLog(path, count_tokens=len)
    log.ledger = ledger = SpendLedger(path)
    log.record_platform("devto", "search", "", 0.01, principal="bob")
    assert ledger.reserve("devto", "read", "", 60, 100, now - 60) == 2
    report = log.report()
    log.close()
    assert row(report, "devto", "search")["calls"] == 2
    assert row(report, "devto", "search")["remaining"]["remaining"] == 7
    assert report["spend"]["days"][0]["calls"] == 2
    with sqlite3.connect(path) as db:
        versions = [v for (v,) in db.execute("SELECT version FROM schema_version ORDER BY 1")]
        principals = sorted(p for (p,) in db.execute("SELECT principal FROM calls"))
        indexes = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    db.close()
    assert versions == list(range(1, migrations.LATEST + 1))
    assert principals == ["alice", "bob"]
    assert "calls_principal" in indexes  # usage step 7, which the old code never made


@pytest.mark.parametrize("newer", [True, False])
def test_a_usage_file_newer_or_damaged_is_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], newer: bool
) -> None:
    # status's usage lines (`compact`) raised, and status failed whole; `gwanjong usage`
    # printed a traceback
    path = tmp_path / "usage.db"
    if newer:
        ledger = SpendLedger(path)
        ledger.spent("devto", 0)  # the file, at the latest version
        ledger.close()
        with sqlite3.connect(path) as db:
            db.execute("INSERT INTO schema_version VALUES (?)", (migrations.LATEST + 1,))
        db.close()
    else:
        path.write_bytes(b"not a database at all, but long enough" * 200)
    why = "upgrade gwanjong" if newer else "not a database"
    log = UsageLog(path, count_tokens=len)
    [line] = log.compact()
    log.close()
    assert line.startswith(f"unavailable: the usage figures in {path}") and why in line, line
    cfg = tmp_path / "usage.toml"
    cfg.write_text(config_text(tmp_path, []), "utf-8")
    assert exit_code(["usage", "--config", str(cfg)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gwanjong usage: unavailable:") and why in err, err
