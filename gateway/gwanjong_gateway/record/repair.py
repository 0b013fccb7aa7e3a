"""`gwanjong doctor`'s record checks and `--repair` (docs/operate/durability.md). A damaged
record is never just moved aside (that forgets every claim): every row and open journal
entry is exported first, then a fresh record carries them over.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import logging
import shutil
import sqlite3
import tempfile
import time
from contextlib import closing
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.paths import replace_private
from gwanjong_gateway.record.journal import Journal, Sent, restore
from gwanjong_gateway.record.records import open_store, store_url
from gwanjong_gateway.record.sql import pg_errors
from gwanjong_gateway.record.sql.files import BROKEN, REBUILD, move_set, sidecars
from gwanjong_gateway.record.sql.sqlite_errors import Trouble, trouble
from gwanjong_gateway.record.sql.statements import COLUMNS
from gwanjong_gateway.record.store import SchemaError, StrikeStore
from gwanjong_gateway.rules.ledger import HOLDING, UNSETTLED, StrikeStatus

log = logging.getLogger(__name__)

#: less free space than this on the state_dir's disk is reported as full
LOW_SPACE_BYTES = 1024 * 1024


class Health(StrEnum):
    OK = "ok"
    MISSING = "missing"  # no record yet: one is created on first use
    DAMAGED = "damaged"
    FULL = "disk full"
    READ_ONLY = "read-only"
    NEWER = "newer schema"
    BUSY = "busy"  # held by another process (a gateway running): never damage, never rebuilt
    UNREACHABLE = "unreachable"


@dataclass
class RecordCheck:
    engine: str  # sqlite | postgresql
    location: str  # the file, or host:port (never a password)
    health: Health
    problem: str = ""
    counts: dict[str, int] = field(default_factory=dict[str, int])


def _said(exc: BaseException) -> str:
    """The error on one bounded line (SQLite's integrity report spans several)."""
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:300]


def _health_of(exc: sqlite3.Error | OSError) -> Health:
    found = {
        Trouble.FULL: Health.FULL,
        Trouble.READ_ONLY: Health.READ_ONLY,
        Trouble.BUSY: Health.BUSY,
    }
    return found.get(trouble(exc), Health.DAMAGED)


def check_record(config: GatewayConfig) -> RecordCheck:
    """Open the record as the gateway would and say how it is."""
    url = store_url(config)
    path = config.state_dir / "gwanjong.db"
    engine, where = ("postgresql", pg_errors.where(url)) if url else ("sqlite", str(path))
    if not url and not path.exists():
        return RecordCheck(engine, where, Health.MISSING, "created on first use")
    try:
        with closing(open_store(config, config.store.lock_timeout_s)) as store:
            return RecordCheck(engine, where, Health.OK, counts=store.status_counts())
    except SchemaError as exc:  # either engine: upgrade gwanjong, nothing to repair
        return RecordCheck(engine, where, Health.NEWER, _said(exc))
    except Exception as exc:
        if url:
            said = pg_errors.describe(exc, url, config.store.lock_timeout_s)
            return RecordCheck(engine, where, Health.UNREACHABLE, said or type(exc).__name__)
        if not isinstance(exc, sqlite3.Error | OSError):
            raise
        health = _health_of(exc)
        held = "; another gwanjong process holds it: stop it first" if health is Health.BUSY else ""
        return RecordCheck(engine, where, health, _said(exc) + held)


def disk_free(folder: Path) -> int | None:
    """Free bytes on the disk of ``folder`` (its nearest existing parent); None if unknown."""
    for p in (folder, *folder.parents):
        if p.exists():
            try:
                return shutil.disk_usage(p).free
            except OSError:
                return None
    return None


# -- salvage: every row that can still be read -----------------------------------------------


def _rows_of(con: sqlite3.Connection, table: str) -> list[dict[str, Any]]:
    try:
        return [dict(r) for r in con.execute(f"SELECT * FROM {table} ORDER BY id")]
    except sqlite3.DatabaseError:  # damaged pages: row by row, skipping what cannot be read
        pass
    try:
        top = int(con.execute(f"SELECT MAX(id) FROM {table}").fetchone()[0] or 0)
    except sqlite3.DatabaseError:  # or a record from before the table
        top = 100_000
    rows: list[dict[str, Any]] = []
    misses = 0
    for rid in range(1, top + 1):
        try:
            row = con.execute(f"SELECT * FROM {table} WHERE id = ?", (rid,)).fetchone()
        except sqlite3.DatabaseError:
            row = None
        if row is None:
            misses += 1
            if misses > 1000 and top == 100_000:
                break
            continue
        misses = 0
        rows.append(dict(row))
    return rows


def salvage_sqlite(
    path: Path,
) -> tuple[list[dict[str, Any]], dict[str, str], list[dict[str, Any]]]:
    """What is readable in a (possibly damaged) SQLite record, its WAL included: the strike
    rows, the paused platforms, and the approvals (the pending ones are writes a person has
    yet to decide, the others their audit)."""
    if not path.exists():
        return [], {}, []
    try:
        con = sqlite3.connect(str(path), timeout=2)
    except sqlite3.Error:
        return [], {}, []
    con.row_factory = sqlite3.Row
    with closing(con):
        rows, approvals = _rows_of(con, "strikes"), _rows_of(con, "approvals")
        try:
            found = con.execute("SELECT platform, paused_reason FROM platform_health")
            paused = {str(p): str(why) for p, why in found if why}
        except sqlite3.DatabaseError:
            paused = {}
    for row in approvals:
        for key in ("post", "context", "policy"):
            with contextlib.suppress(TypeError, ValueError):
                row[key] = json.loads(row[key])
    return rows, paused, approvals


def approvals_of(store: StrikeStore) -> list[dict[str, Any]]:
    """Every approval of an open record, oldest first."""
    rows = reversed(store.approvals(0.0, pending=False, limit=10_000_000))
    return [dataclasses.asdict(a) | {"status": str(a.status)} for a in rows]


def salvage_store(store: StrikeStore) -> list[dict[str, Any]]:
    """Every row of an open record (PostgreSQL, or a healthy SQLite file)."""
    rows = list(reversed(store.history(limit=10_000_000)))
    return [
        dataclasses.asdict(r) | {"status": str(r.status), "action": str(r.action)} for r in rows
    ]


# -- export ----------------------------------------------------------------------------------


def export(
    rows: list[dict[str, Any]],
    entries: list[Sent],
    paused: dict[str, str],
    where: list[Path],
    source: str,
    now: float,
    approvals: list[dict[str, Any]] | None = None,
) -> Path:
    """Write the export to the first of ``where`` that takes it, never over a file there
    (FileExistsError), all or nothing (temp file, then rename); its path. Raises OSError
    (the last one) when none does."""
    doc = {
        "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)),
        "record": source,
        "holding": [r["id"] for r in rows if r.get("status") in HOLDING],
        "unsettled": [r["id"] for r in rows if r.get("status") in UNSETTLED],
        "strikes": rows,
        "journal_open": [e.model_dump(mode="json") for e in entries],
        "paused": paused,
        "approvals": approvals or [],
    }
    text = json.dumps(doc, ensure_ascii=False, indent=1, default=str)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
    last: OSError | None = None
    for place in where:
        target = place if place.suffix == ".json" else place / f"gwanjong-export-{stamp}.json"
        try:
            if target.exists() or target.is_symlink():
                raise FileExistsError(errno.EEXIST, "already exists", str(target))
            replace_private(target, text)  # a failed write leaves no temp file, nor touches target
        except OSError as exc:
            last = exc
            continue
        return target
    raise last or OSError("no place to write the export")


def export_places(state_dir: Path, explicit: Path | None) -> list[Path]:
    """Where an export may go: the given path, else the state_dir, then the home folder,
    then the temp folder (a full state_dir disk still leaves the others)."""
    if explicit is not None:
        return [explicit]
    return [state_dir, Path.home(), Path(tempfile.gettempdir())]


# -- rebuild ---------------------------------------------------------------------------------


def carry_over(
    store: StrikeStore, rows: list[dict[str, Any]], paused: dict[str, str]
) -> tuple[int, list[int]]:
    """Insert ``rows`` (ids kept) into a fresh ``store``; (carried, skipped ids)."""
    carried = 0
    skipped: list[int] = []
    for raw in rows:
        fields = {k: v for k, v in raw.items() if k in COLUMNS}
        try:
            store.insert(**fields)
            carried += 1
        except (sqlite3.Error, TypeError, ValueError) as exc:  # a torn row; kept in the export
            log.warning("doctor: record %s not carried over: %s", raw.get("id"), exc)
            skipped.append(int(raw.get("id") or 0))
    for platform, reason in paused.items():  # still paused: a person clears it with setup
        store.record_failure(platform, reason, 1)
    return carried, skipped


@dataclass
class Rebuilt:
    broken: Path  # where the old record now is
    carried: int
    skipped: list[int]
    restored: int  # journal entries put back as unknown


def rebuild_sqlite(
    db: Path,
    rows: list[dict[str, Any]],
    paused: dict[str, str],
    entries: list[Sent],
    now: float,
    approvals: list[dict[str, Any]] | None = None,
) -> Rebuilt:
    """Keep the old record as `<db>.broken-<time>` and build a fresh one holding ``rows`` and
    the journal's open writes; on any failure the old one is put back."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
    broken = db.with_name(db.name + BROKEN + stamp)
    fresh = db.with_name(db.name + REBUILD + stamp)
    for p in sidecars(fresh):
        with contextlib.suppress(OSError):
            p.unlink()
    try:
        store = StrikeStore(fresh)
        try:
            carried, skipped = carry_over(store, rows, paused)
            for approval in approvals or []:  # pending ones still wait for their person
                try:
                    store.restore_approval(approval)
                except (sqlite3.Error, TypeError, ValueError) as exc:
                    log.warning("doctor: approval %s not carried over: %s", approval.get("id"), exc)
            restored = sum(
                1
                for e in entries
                if (held := restore(store, e, now)) is not None
                and held.status == StrikeStatus.UNKNOWN
            )
        finally:
            store.close()  # the last connection: SQLite folds its WAL into the file
        move_set(db, broken)
    except BaseException:
        for p in sidecars(fresh):
            with contextlib.suppress(OSError):
                p.unlink()
        raise
    try:
        move_set(fresh, db)
    except BaseException:
        move_set(broken, db)  # the old one back where it was
        raise
    return Rebuilt(broken, carried, skipped, restored)


def open_entries(state_dir: Path) -> list[Sent]:
    try:
        return Journal(state_dir).open_entries()
    except OSError:
        return []
