"""The SQLite strike record's migrations: a file from before versioning (no
`schema_version`, no `principal` column) opens, keeps its rows and gains the columns; a
file from a newer gwanjong is refused, not damaged."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from gwanjong_gateway.record import migrations
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import SchemaError, StrikeStore
from gwanjong_shared.contract.errors import PlatformError

pytestmark = pytest.mark.anyio

# The schema as gwanjong wrote it before migrations (verbatim).
OLD_SCHEMA = """
CREATE TABLE IF NOT EXISTS strikes (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    intent_key    TEXT NOT NULL,
    platform      TEXT NOT NULL,
    target        TEXT NOT NULL,          -- post id acted on; '' for a new post
    target_url    TEXT NOT NULL DEFAULT '',
    author        TEXT NOT NULL DEFAULT '',
    opportunity   TEXT NOT NULL DEFAULT '',
    action        TEXT NOT NULL,          -- comment | post | upvote
    content_hash  TEXT NOT NULL,
    content       TEXT NOT NULL,
    title         TEXT NOT NULL DEFAULT '',
    mode          TEXT NOT NULL,          -- dry-run | confirm | live
    status        TEXT NOT NULL,          -- a ledger.StrikeStatus
    reason        TEXT NOT NULL DEFAULT '',
    approver      TEXT NOT NULL DEFAULT '',  -- auto | human | ''
    result_id     TEXT NOT NULL DEFAULT '',
    result_url    TEXT NOT NULL DEFAULT '',
    context       TEXT NOT NULL DEFAULT '{}',  -- what the model saw in draft
    policy        TEXT NOT NULL DEFAULT '[]',  -- the policy decisions, in order
    created_at    REAL NOT NULL,
    updated_at    REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS strikes_target ON strikes (platform, target, action);
CREATE INDEX IF NOT EXISTS strikes_intent ON strikes (intent_key);
-- The database itself refuses a second live claim on a target (or, for new posts, on the
-- same text), so two gateways or two racing calls cannot both write.
CREATE UNIQUE INDEX IF NOT EXISTS strikes_one_claim ON strikes (platform, target, action)
    WHERE target != '' AND status IN ('pending', 'posted', 'handoff', 'unknown');
CREATE UNIQUE INDEX IF NOT EXISTS strikes_one_post ON strikes (platform, intent_key)
    WHERE target = '' AND status IN ('pending', 'posted', 'handoff', 'unknown');
CREATE TABLE IF NOT EXISTS platform_health (
    platform      TEXT PRIMARY KEY,
    failures      INTEGER NOT NULL DEFAULT 0,
    paused_reason TEXT NOT NULL DEFAULT '',
    updated_at    REAL NOT NULL
);
"""


def old_file(path: Path) -> None:
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    db.execute(
        "INSERT INTO strikes (intent_key, platform, target, action, content_hash, content, "
        "mode, status, policy, created_at, updated_at) VALUES "
        "('k1', 'devto', 't1', 'comment', 'h', 'old words', 'live', 'posted', "
        '\'["by=carol", "mode=live"]\', 1.0, 2.0)'
    )
    db.commit()
    db.close()


def test_an_old_file_opens_and_gains_the_principal_column(tmp_path: Path) -> None:
    path = tmp_path / "gwanjong.db"
    old_file(path)
    store = StrikeStore(path)
    try:
        assert store.schema_version() == migrations.LATEST
        (old,) = store.history()
        assert (old.content, old.status, old.principal) == ("old words", "posted", "")
        assert (old.readbacks, old.confirmed_by) == (0, "")
        assert store.acted_targets() == {("devto", "t1")}  # its claim still holds
        new = store.insert(
            intent_key="k2",
            platform="devto",
            target="t2",
            action="comment",
            content_hash="h2",
            content="new words",
            mode="live",
            status="posted",
            principal="dave",
            policy=["mode=live"],
        )
        assert (new.principal, new.confirmed_by) == ("dave", "")
        # a decision that reads like a caller is only a decision: never parsed back
        posed = store.insert(
            intent_key="k4",
            platform="devto",
            target="t4",
            action="comment",
            content_hash="h4",
            content="posing words",
            mode="live",
            status="posted",
            policy=["by=eve", "mode=live"],
        )
        assert posed.principal == ""
        with pytest.raises(sqlite3.IntegrityError):  # the unique claim index survived
            store.insert(
                intent_key="k3",
                platform="devto",
                target="t1",
                action="comment",
                content_hash="h3",
                content="again",
                mode="live",
                status="pending",
            )
    finally:
        store.close()
    again = StrikeStore(path)  # reopening applies nothing twice
    try:
        versions = [r[0] for r in again._db.execute("SELECT version FROM schema_version")]
        assert versions == list(range(1, migrations.LATEST + 1))
    finally:
        again.close()


def test_both_engines_have_the_same_versions() -> None:
    assert len(migrations.SQLITE) == len(migrations.POSTGRES) == migrations.LATEST


async def test_a_file_from_a_newer_gwanjong_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "gwanjong.db"
    StrikeStore(path).close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO schema_version (version) VALUES (?)", (migrations.LATEST + 1,))
    db.commit()
    db.close()
    with pytest.raises(SchemaError):
        StrikeStore(path)
    records = Records(path)
    assert not await records.open()
    assert "newer than this gwanjong knows" in records.broken
    with pytest.raises(PlatformError):
        await records.run(StrikeStore.history)
