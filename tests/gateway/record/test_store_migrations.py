"""The SQLite strike record's migrations: a file from before versioning (no
`schema_version`, no `principal` column) opens, keeps its rows and gains the column; so
does a file at every older version; a file from a newer gwanjong is refused, not damaged.
Old files are made by the real migration steps up to their version, not by a copy."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from gwanjong_gateway.cli.history import print_history
from gwanjong_gateway.config import parse
from gwanjong_gateway.record.records import Records, open_store
from gwanjong_gateway.record.repair import Health, check_record
from gwanjong_gateway.record.sql import migrations
from gwanjong_gateway.record.store import SchemaError, StrikeStore
from gwanjong_shared.contract.errors import PlatformError
from tests.gateway.helpers import config_text
from tests.gateway.rows import strike_row

pytestmark = pytest.mark.anyio


def file_at(path: Path, version: int, *, versioned: bool = True) -> None:
    """A record as gwanjong left it at schema ``version``: the real migration steps up to
    it, and one posted comment. ``versioned=False``: a file from before versioning, which
    had step 1's tables and no `schema_version` table at all."""
    db = sqlite3.connect(path)
    if versioned:
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for n, statements in enumerate(migrations.SQLITE[:version], 1):
        for statement in statements:
            db.execute(statement)
        if versioned:
            db.execute("INSERT INTO schema_version (version) VALUES (?)", (n,))
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
    file_at(path, 1, versioned=False)
    with closing(StrikeStore(path)) as store:
        assert store.schema_version() == migrations.LATEST
        (old,) = store.history()
        assert (old.content, old.status, old.principal) == ("old words", "posted", "")
        assert (old.readbacks, old.confirmed_by) == (0, "")
        assert store.acted_among([("devto", "t1"), ("devto", "t9")]) == {
            ("devto", "t1")
        }  # its claim still holds
        new = strike_row(
            store,
            intent_key="k2",
            target="t2",
            content_hash="h2",
            content="new words",
            status="posted",
            principal="dave",
            policy=["mode=live"],
        )
        assert (new.principal, new.confirmed_by) == ("dave", "")
        # a decision that reads like a caller is only a decision: never parsed back
        posed = strike_row(
            store,
            intent_key="k4",
            target="t4",
            content_hash="h4",
            content="posing words",
            status="posted",
            policy=["by=eve", "mode=live"],
        )
        assert posed.principal == ""
        with pytest.raises(sqlite3.IntegrityError):  # the unique claim index survived
            strike_row(store, intent_key="k3", content_hash="h3", content="again", status="pending")
    with closing(StrikeStore(path)) as again:  # reopening applies nothing twice
        versions = [r[0] for r in again.engine.db.execute("SELECT version FROM schema_version")]
        assert versions == list(range(1, migrations.LATEST + 1))
    assert len(migrations.SQLITE) == len(migrations.POSTGRES) == migrations.LATEST  # both engines


@pytest.mark.parametrize("version", range(1, migrations.LATEST))
def test_a_file_at_each_older_version_opens_at_the_latest_and_keeps_its_rows(
    tmp_path: Path, version: int
) -> None:
    path = tmp_path / "gwanjong.db"
    file_at(path, version)
    with closing(StrikeStore(path)) as store:
        assert store.schema_version() == migrations.LATEST
        (old,) = store.history()
        assert (old.content, old.status, old.readbacks) == ("old words", "posted", 0)
        assert store.acted_among([("devto", "t1"), ("devto", "t9")]) == {("devto", "t1")}
        versions = [r[0] for r in store.engine.db.execute("SELECT version FROM schema_version")]
        assert versions == list(range(1, migrations.LATEST + 1))  # each step applied once


async def test_a_record_from_a_newer_gwanjong_is_refused_untouched(
    tmp_path: Path, store_url: str, record: StrikeStore, capsys: pytest.CaptureFixture[str]
) -> None:
    record.engine.x("INSERT INTO schema_version (version) VALUES (?)", (migrations.LATEST + 1,))
    tables = {"store": {"url": store_url}} if store_url else None
    config = parse(config_text(tmp_path, [], tables=tables))
    with pytest.raises(SchemaError):
        open_store(config)
    # doctor: PostgreSQL's said "unreachable (SchemaError)"; history: a traceback
    assert check_record(config).health is Health.NEWER
    assert print_history(config, None, None, 10, as_json=True) == 2
    assert "upgrade gwanjong" in capsys.readouterr().err
    records = Records.for_config(config)
    assert not await records.open()
    assert "newer than this gwanjong knows" in records.broken
    # what to do is upgrading: doctor --repair changes nothing in a newer record
    assert "upgrade gwanjong" in records.broken and "repair" not in records.broken
    with pytest.raises(PlatformError):
        await records.run(StrikeStore.history)


def test_an_unsure_write_left_to_a_person_keeps_that_after_the_step(tmp_path: Path) -> None:
    # Before step 9 only the reason's words said a person must settle a write; the step
    # carries that into the typed field, and only for writes still unsettled.
    path = tmp_path / "gwanjong.db"
    file_at(path, 8)
    db = sqlite3.connect(path)
    for key, status in (("k2", "unknown"), ("k3", "failed")):
        db.execute(
            "INSERT INTO strikes (intent_key, platform, target, action, content_hash, content, "
            "mode, status, reason, policy, created_at, updated_at) VALUES "
            f"('{key}', 'reddit', '{key}', 'upvote', 'h', '', 'live', '{status}', "
            "'the platform cannot be read back for this; a person must check and run "
            "`gwanjong history --resolve 2 --as posted|failed`', '[]', 1.0, 2.0)"
        )
    db.commit()
    db.close()
    with closing(StrikeStore(path)) as store:
        flags = {r.intent_key: r.needs_person for r in store.history()}
        assert flags == {"k1": False, "k2": True, "k3": False}, flags
