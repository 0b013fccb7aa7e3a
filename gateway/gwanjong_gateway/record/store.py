"""The strike record (`PostgresStrikeStore`: the same on PostgreSQL, engine.py holds the
differences). A write is claimed before the platform is called, in one transaction that
checks every limit and inserts the `pending` row (BEGIN IMMEDIATE; PostgreSQL: an advisory
lock per platform), so no two processes can both pass. Synchronous: see `records`.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gwanjong_gateway.record.rows.approval_rows import ApprovalRows
from gwanjong_gateway.record.rows.handle_rows import HandleRows
from gwanjong_gateway.record.rows.handoff_rows import HandoffRows
from gwanjong_gateway.record.rows.notice_rows import NoticeRows
from gwanjong_gateway.record.sql import migrations
from gwanjong_gateway.record.sql.engine import (
    BUSY_TIMEOUT_S,
    CONNECT_TIMEOUT_S,
    STATEMENT_TIMEOUT_S,
    Engine,
    PostgresEngine,
    SchemaError,
    SqliteEngine,
)
from gwanjong_gateway.record.sql.files import finish_repair
from gwanjong_gateway.record.sql.statements import marks, where
from gwanjong_gateway.rules import policy
from gwanjong_gateway.rules.ledger import (
    ENGAGING,
    HOLDING,
    SIMILAR,
    UNSETTLED,
    WRITING,
    ClaimRequest,
    Strike,
    StrikeAction,
    StrikeStatus,
    Verdict,
    similarity,
)

__all__ = ["BUSY_TIMEOUT_S", "SchemaError", "StrikeStore"]


_HOLDING, _WRITING, _UNSETTLED, _ENGAGING = map(marks, (HOLDING, WRITING, UNSETTLED, ENGAGING))


@dataclass(frozen=True)
class HistoryFilter:
    """Which rows a history page shows. ``principal`` None: everyone's."""

    platform: str = ""
    status: StrikeStatus | None = None
    principal: str | None = None
    since: float | None = None  # created_at >= since
    until: float | None = None  # created_at < until


class StrikeStore(ApprovalRows, HandleRows, HandoffRows, NoticeRows):
    def __init__(self, path: Path, busy_timeout_s: float = BUSY_TIMEOUT_S) -> None:
        """Raises sqlite3.DatabaseError when the file is not a readable strike record."""
        finish_repair(path)
        self._open(SqliteEngine(path, busy_timeout_s, synced=True), path)

    @classmethod
    def reader(cls, path: Path) -> StrikeStore:
        """A read-only connection to a record another connection has opened (checked and
        migrated) already, that never waits for a lock: busy is an error at once."""
        store = cls.__new__(cls)
        store._open(SqliteEngine(path, busy_timeout_s=0), path, read_only=True)
        return store

    def _open(self, engine: Engine, path: Path | None, read_only: bool = False) -> None:
        self.engine = engine
        self.path = path
        self.url = getattr(engine, "url", "")
        try:
            if read_only:  # checked and migrated by the connection that opened it first
                engine.x("PRAGMA query_only = 1")
                return
            check = "ok" if engine.postgres else engine.value("PRAGMA quick_check")
            if check != "ok":
                raise sqlite3.DatabaseError(f"integrity check failed: {check or '?'}")
            migrations.migrate(engine, migrations.RECORD)
        except BaseException:
            engine.close()
            raise

    def close(self) -> None:
        self.engine.close()

    def schema_version(self) -> int:
        return int(self.engine.value("SELECT MAX(version) FROM schema_version") or 0)

    def save_dry_run(self, **fields: Any) -> Strike:
        """One dry-run record per intent (target, action and text): a repeat of the same
        dry run updates that record (its time, decisions, caller) instead of adding one."""
        key = fields["intent_key"]
        # Per caller: one team member's dry run never takes over another's record.
        fields.setdefault("principal", "")
        # unsynced: nothing was sent and a dry run holds no target, so an OS crash may lose it
        with self.engine.unsynced(), self._transaction(immediate=True, lock=f"dry-run:{key}"):
            found = self.engine.value(
                "SELECT id FROM strikes WHERE intent_key = ? AND status = ? AND principal = ? "
                "ORDER BY id DESC LIMIT 1" + self.engine.FOR_UPDATE,
                (key, StrikeStatus.DRY_RUN, fields["principal"]),
            )
            if found is None:
                return self.insert(**fields)
            fields.pop("created_at", None)
            return self.update(int(found), **fields)

    # -- the claim ----------------------------------------------------------------------

    def decide(self, req: ClaimRequest, now: float, insert: bool) -> Verdict:
        """Every limit, and (with ``insert``) the claim itself, in one transaction."""
        with self._transaction(immediate=insert, lock=req.platform):
            use = req.approval if insert else None
            if use is not None:
                gone = self._unusable(use, now)
                if gone:
                    return Verdict(refusal=gone)
            earlier = self._holding(req, now)
            if earlier is not None:
                return Verdict(earlier=earlier)
            if req.action.engages_author:  # a new post or an upvote engages no one
                author = str(req.row.get("author", ""))
                last = self._last_to_author(req.platform, author)
                who = str(req.row.get("principal") or "")
                why = policy.author_cooldown(
                    req.cooldown_days, last, req.platform, author, now, who
                )
                if why:
                    return Verdict(refusal=why[0], retry_after=why[1])
            if req.live:
                used = self._count(req.platform, req.action, policy.day_start(now))
                why = policy.daily_cap(req.cap, used, req.platform, req.action, now)
                if why:
                    return Verdict(refusal=why[0], retry_after=why[1])
                wait = policy.min_interval(
                    req.interval_s, self._last_write(req.platform), req.platform, now
                )
                if wait:
                    return Verdict(refusal=wait[0], retry_after=wait[1])
            if not insert:
                return Verdict()
            row = self.insert(**req.row, now=now)
            if use is not None:
                self._consume(use, now, row, req.sent, req.length)
            return Verdict(row=row)

    def check(self, req: ClaimRequest, now: float) -> Verdict:
        """`decide` without the claim: every limit, read in one transaction."""
        return self.decide(req, now, insert=False)

    def _holding(self, req: ClaimRequest, now: float) -> Strike | None:
        """The earlier claim that holds this target, or this (or a near-identical) post."""
        if req.target:
            return self.engine.row(
                Strike,
                f"SELECT * FROM strikes WHERE platform = ? AND target = ? AND action = ? "
                f"AND status IN ({_HOLDING}) ORDER BY id DESC LIMIT 1",
                (req.platform, req.target, req.action, *HOLDING),
            )
        same = self.same_intent(str(req.row["intent_key"]))
        if same is not None or not req.cooldown_days:
            return same
        since = now - req.cooldown_days * 86400
        rows = self.engine.tuples(
            f"SELECT id, content FROM strikes WHERE platform = ? AND target = '' AND action = ? "
            f"AND status IN ({_HOLDING}) AND created_at >= ? ORDER BY id DESC LIMIT 500",
            (req.platform, StrikeAction.POST, *HOLDING, since),
        )
        text = str(req.row["content"])
        found = next((i for i, content in rows if similarity(text, content) >= SIMILAR), None)
        return None if found is None else self.get(found)

    def _count(self, platform: str, action: str, since: float) -> int:
        return self.engine.value(
            f"SELECT COUNT(*) FROM strikes WHERE platform = ? AND action = ? "
            f"AND status IN ({_WRITING}) AND created_at >= ?",
            (platform, action, *WRITING, since),
        )

    def _last_write(self, platform: str) -> float | None:
        return self.engine.value(
            f"SELECT MAX(created_at) FROM strikes WHERE platform = ? AND status IN ({_WRITING})",
            (platform, *WRITING),
        )

    def _last_to_author(self, platform: str, author: str) -> Strike | None:
        """The latest write to ``author`` that engaged them: sent, in flight or unsure. A
        hand-off counts once it is posted (a waiting one may never be)."""
        if not author:
            return None
        return self.engine.row(
            Strike,
            f"SELECT * FROM strikes WHERE platform = ? AND author = ? AND action IN ({_ENGAGING}) "
            f"AND target != '' AND status IN ({_WRITING}) ORDER BY created_at DESC LIMIT 1",
            (platform, author, *ENGAGING, *WRITING),
        )

    # -- other questions ------------------------------------------------------------------

    def same_intent(self, key: str) -> Strike | None:
        return self.engine.row(
            Strike,
            f"SELECT * FROM strikes WHERE intent_key = ? AND status IN ({_HOLDING}) ORDER BY id DESC LIMIT 1",
            (key, *HOLDING),
        )

    def acted_among(self, targets: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
        """Which of these (platform, target) pairs a live or unsure claim holds (indexed: a
        record of millions costs what it holds of them)."""
        found: set[tuple[str, str]] = set()
        by_platform: dict[str, list[str]] = {}
        for platform, target in dict.fromkeys(targets):
            if target:
                by_platform.setdefault(platform, []).append(target)
        for platform, ids in by_platform.items():
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                rows = self.engine.tuples(
                    f"SELECT DISTINCT target FROM strikes WHERE platform = ? AND target IN "
                    f"({marks(chunk)}) AND status IN ({_HOLDING})",
                    (platform, *chunk, *HOLDING),
                )
                found.update((platform, target) for (target,) in rows)
        return found

    def status_counts(self) -> dict[str, int]:
        """How many strikes are in each status (`gwanjong doctor`)."""
        return dict(self.engine.tuples("SELECT status, COUNT(*) FROM strikes GROUP BY status"))

    def unsettled(self) -> list[Strike]:
        return self.engine.rows(
            Strike, f"SELECT * FROM strikes WHERE status IN ({_UNSETTLED}) ORDER BY id", UNSETTLED
        )

    def settle(self, strike_id: int, status: StrikeStatus, **fields: Any) -> Strike | None:
        """Move an unsettled row to ``status``; None if someone settled it already."""
        with self._transaction(immediate=True):
            found = self.engine.value(
                f"SELECT id FROM strikes WHERE id = ? AND status IN ({_UNSETTLED}){self.engine.FOR_UPDATE}",
                (strike_id, *UNSETTLED),
            )
            return None if found is None else self.update(strike_id, status=status, **fields)

    def take_settling(self, strike_id: int, by: str, now: float, lease_s: float) -> Strike | None:
        """Compare-and-set: this unsettled row is ``by``'s to read back for ``lease_s``, unless
        another holds an unexpired lease; the row, or None. One atomic UPDATE on both engines. A
        lease ending more than two leases off came from a clock step ahead: it is taken too."""
        taken = self.engine.value(
            f"UPDATE strikes SET settling_by = ?, settling_until = ? WHERE id = ? "
            f"AND status IN ({_UNSETTLED}) AND (settling_until <= ? OR settling_until > ?) "
            "RETURNING id",
            (by, now + lease_s, strike_id, *UNSETTLED, now, now + 2 * lease_s),
        )
        return None if taken is None else self.get(strike_id)

    def release_settling(self, strike_id: int, by: str) -> None:
        """``by``'s read-back is over: the row is free for the next one at once."""
        self.engine.x(
            "UPDATE strikes SET settling_by = '', settling_until = 0 "
            "WHERE id = ? AND settling_by = ?",
            (strike_id, by),
        )

    def count_readback(self, strike_id: int, seen: int) -> int:
        """One more spaced read-back found this unsettled row absent, counted if the count is
        still ``seen`` (none counted elsewhere since); the count now (0: not counted)."""
        return (
            self.engine.value(
                f"UPDATE strikes SET readbacks = readbacks + 1 WHERE id = ? AND readbacks = ? "
                f"AND status IN ({_UNSETTLED}) RETURNING readbacks",
                (strike_id, seen, *UNSETTLED),
            )
            or 0
        )

    def history(
        self,
        platform: str | None = None,
        status: StrikeStatus | None = None,
        limit: int = 50,
        principal: str | None = None,
    ) -> list[Strike]:
        """The newest rows first; ``principal``: only that caller's (None: everyone's)."""
        return self.history_page(HistoryFilter(platform or "", status, principal), None, limit)

    def history_page(
        self, which: HistoryFilter, before: int | None = None, limit: int = 50
    ) -> list[Strike]:
        """Up to ``limit`` rows older than record ``before`` (None: the newest), newest
        first, keyset-paged on the id (the 10,000th row costs what the first does). Ask for
        one more than shown to know whether an older page exists."""
        sql, args = where(
            ("id < ?", before),
            ("principal = ?", which.principal),
            ("platform = ?", which.platform or None),
            ("status = ?", which.status),
            ("created_at >= ?", which.since),
            ("created_at < ?", which.until),
        )
        return self.engine.rows(
            Strike, f"SELECT * FROM strikes {sql} ORDER BY id DESC LIMIT ?", [*args, limit]
        )

    # -- failure pause ------------------------------------------------------------------

    def record_failure(self, platform: str, reason: str, pause_after: int) -> int:
        now = time.time()
        failures = int(
            self.engine.value(
                "INSERT INTO platform_health (platform, failures, paused_reason, updated_at) "
                "VALUES (?, 1, '', ?) ON CONFLICT(platform) DO UPDATE SET "
                "failures = platform_health.failures + 1, updated_at = ? RETURNING failures",
                (platform, now, now),
            )
        )
        if failures >= pause_after:
            self.engine.x(
                "UPDATE platform_health SET paused_reason = ? WHERE platform = ?",
                (f"{failures} write failures in a row; last: {reason}", platform),
            )
        return failures

    def clear_pause(self, platform: str) -> None:
        self.engine.x(
            "INSERT INTO platform_health (platform, failures, paused_reason, updated_at) VALUES (?, 0, '', ?) "
            "ON CONFLICT(platform) DO UPDATE SET failures = 0, paused_reason = '', updated_at = ?",
            (platform, time.time(), time.time()),
        )

    record_success = clear_pause

    def paused(self, platform: str) -> str:
        return str(
            self.engine.value(
                "SELECT paused_reason FROM platform_health WHERE platform = ?", (platform,)
            )
            or ""
        )

    def paused_unless_expiring(self, platform: str, older_than: float) -> str | None:
        """`paused`, or None when a hand-off is to expire first (`any_to_expire`)."""
        return None if self.any_to_expire(older_than) else self.paused(platform)

    # -- inbox cursors (the shared record's copy; see inbox_record) ---------------------

    def inbox_cursor(self, platform: str) -> str | None:
        return self.engine.value(
            "SELECT next_since FROM inbox_cursors WHERE platform = ?", (platform,)
        )

    def set_inbox_cursor(self, platform: str, cursor: str) -> None:
        self.engine.x(
            "INSERT INTO inbox_cursors (platform, next_since) VALUES (?, ?) "
            "ON CONFLICT(platform) DO UPDATE SET next_since = excluded.next_since",
            (platform, cursor),
        )

    def swap_inbox_cursor(self, key: str, old: str | None, new: str) -> bool:
        """Compare-and-set: move `key` from `old` (None: unset) to `new`; False when
        another process moved it first (the watcher's claim on one period's finds)."""
        if old is None:
            sql = (
                "INSERT INTO inbox_cursors (platform, next_since) VALUES (?, ?) "
                "ON CONFLICT(platform) DO NOTHING"
            )
            return self.engine.x(sql, (key, new)).rowcount == 1
        sql = "UPDATE inbox_cursors SET next_since = ? WHERE platform = ? AND next_since = ?"
        return self.engine.x(sql, (new, key, old)).rowcount == 1


class PostgresStrikeStore(StrikeStore):
    def __init__(  # pyright: ignore[reportMissingSuperCall]
        self,
        url: str,
        busy_timeout_s: float = BUSY_TIMEOUT_S,
        connect_timeout_s: int = CONNECT_TIMEOUT_S,
        statement_timeout_s: float = STATEMENT_TIMEOUT_S,
    ) -> None:
        """Raises psycopg.Error when the database cannot be reached or migrated, and
        MissingExtra when psycopg is not installed."""
        self._open(
            PostgresEngine(url, "gwanjong", busy_timeout_s, connect_timeout_s, statement_timeout_s),
            None,
        )


#: The questions that only read, each a statement or two on indexed rows: on SQLite,
#: `Records.run` asks them at once on the event loop (`StrikeStore.reader`), with no trip
#: to the record's thread.
READS: frozenset[object] = frozenset(
    {
        StrikeStore.acted_among,
        StrikeStore.any_to_expire,
        StrikeStore.approval,
        StrikeStore.check,
        StrikeStore.get,
        StrikeStore.handle,
        StrikeStore.paused,
        StrikeStore.paused_unless_expiring,
        StrikeStore.pending_handoffs,
    }
)
