"""The strike record (`PostgresStrikeStore`: the same on PostgreSQL, engine.py holds the
differences). A write is claimed before the platform is called, in one transaction that
checks every limit and inserts the `pending` row (BEGIN IMMEDIATE; PostgreSQL: an advisory
lock per platform), so no two processes can both pass. Synchronous: see `records`.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gwanjong_gateway.record import migrations
from gwanjong_gateway.record.approval_rows import ApprovalRows
from gwanjong_gateway.record.engine import (
    BUSY_TIMEOUT_S,
    CONNECT_TIMEOUT_S,
    STATEMENT_TIMEOUT_S,
    Engine,
    PostgresEngine,
    SchemaError,
    SqliteEngine,
)
from gwanjong_gateway.record.handle_rows import HandleRows
from gwanjong_gateway.record.handoff_rows import HandoffRows
from gwanjong_gateway.record.history_rows import HistoryFilter, HistoryRows
from gwanjong_gateway.record.notice_rows import NoticeRows
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
    content_hash,
    intent_key,
    similarity,
)

__all__ = [
    "BUSY_TIMEOUT_S",
    "SchemaError",
    "Strike",
    "StrikeStore",
    "content_hash",
    "intent_key",
]


@dataclass(frozen=True)
class NewStrike:
    """A strike row as it is inserted: a `Strike`'s fields (a name that is not one is a
    TypeError, never SQL), each default the column's; ``id`` None: the next one."""

    intent_key: str
    platform: str
    target: str
    action: StrikeAction
    content_hash: str
    content: str
    mode: str
    status: StrikeStatus
    created_at: float
    updated_at: float
    context: Any = "{}"  # what the model saw in draft (JSON, or the value to write as JSON)
    policy: Any = "[]"  # the policy decisions, in order (the same)
    id: int | None = None
    target_url: str = ""
    author: str = ""
    opportunity: str = ""
    title: str = ""
    reason: str = ""
    approver: str = ""
    result_id: str = ""
    result_url: str = ""
    principal: str = ""
    readbacks: int = 0
    confirmed_by: str = ""
    needs_person: int = 0
    claimed_at: float = 0.0
    claimed_url: str = ""
    settling_until: float = 0.0
    settling_by: str = ""
    trace_id: str = ""
    span_id: str = ""

    def __post_init__(self) -> None:
        for key, value in _stored(self.__dict__).items():
            object.__setattr__(self, key, value)


def _marks(values: Sequence[object]) -> str:
    return ", ".join("?" * len(values))


_HOLDING, _WRITING, _UNSETTLED, _ENGAGING = map(_marks, (HOLDING, WRITING, UNSETTLED, ENGAGING))

#: the strike record's columns: a `Strike`'s fields
COLUMNS = frozenset(f.name for f in dataclasses.fields(NewStrike))


def _stored(fields: dict[str, Any]) -> dict[str, Any]:
    """The status by value, the context and decisions as JSON, a flag as 0 or 1."""
    out: dict[str, Any] = {}
    if "status" in fields:
        out["status"] = str(fields["status"])
    if "needs_person" in fields:
        out["needs_person"] = int(fields["needs_person"])
    for key in ("context", "policy"):
        if key in fields and not isinstance(fields[key], str):
            out[key] = json.dumps(fields[key], ensure_ascii=False, default=str)
    return out


def _columns(fields: dict[str, Any]) -> dict[str, Any]:
    """An update's values as stored (a name that is not a column is a TypeError, never SQL)."""
    unknown = fields.keys() - COLUMNS
    if unknown:
        raise TypeError(f"not a strike record column: {', '.join(sorted(unknown))}")
    return fields | _stored(fields)


class StrikeStore(ApprovalRows, HandleRows, HandoffRows, HistoryRows, NoticeRows):
    def __init__(self, path: Path, busy_timeout_s: float = BUSY_TIMEOUT_S) -> None:
        """Raises sqlite3.DatabaseError when the file is not a readable strike record."""
        engine = SqliteEngine(path, busy_timeout_s)
        try:
            check = engine.x("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                raise sqlite3.DatabaseError(f"integrity check failed: {check[0] if check else '?'}")
        except BaseException:
            engine.close()
            raise
        self._open(engine, path)

    def _open(self, engine: Engine, path: Path | None) -> None:
        self.engine = engine
        self.path = path
        self._db: Any = engine.db
        #: appended to a SELECT that is followed by an UPDATE of the same row
        self.FOR_UPDATE = engine.FOR_UPDATE
        self.url = getattr(engine, "url", "")
        try:
            self._migrate()
        except BaseException:
            engine.close()
            raise

    def close(self) -> None:
        self.engine.close()

    def stale(self) -> bool:
        """Whether this idle connection is known dead (a file never is)."""
        return self.engine.stale()

    def _migrate(self) -> None:
        """Apply the migration steps this record lacks (migrations.py)."""
        migrations.migrate(self.engine, migrations.RECORD)

    def schema_version(self) -> int:
        return int(self._x("SELECT MAX(version) AS v FROM schema_version").fetchone()["v"] or 0)

    # -- rows ------------------------------------------------------------------------

    def get(self, strike_id: int) -> Strike | None:
        return self._strike("SELECT * FROM strikes WHERE id = ?", (strike_id,))

    def insert(self, **fields: Any) -> Strike:
        now = fields.pop("now", None) or time.time()
        values: dict[str, Any] = {"created_at": now, "updated_at": now, **fields}
        row = NewStrike(**_columns(values))
        omit = ("id",) if row.id is None else ()
        strike = self.get(int(self.engine.insert("strikes", [row], returning="id", omit=omit)))
        assert strike is not None
        return strike

    def update(self, strike_id: int, **fields: Any) -> Strike:
        fields["updated_at"] = fields.pop("now", None) or time.time()
        fields = _columns(fields)
        sets = ", ".join(f"{k} = ?" for k in fields)
        self._x(f"UPDATE strikes SET {sets} WHERE id = ?", (*fields.values(), strike_id))
        strike = self.get(strike_id)
        assert strike is not None
        return strike

    def save_dry_run(self, **fields: Any) -> Strike:
        """One dry-run record per intent (target, action and text): a repeat of the same
        dry run updates that record (its time, decisions, caller) instead of adding one."""
        key = fields["intent_key"]
        # Per caller: one team member's dry run never takes over another's record.
        fields.setdefault("principal", "")
        with self._transaction(immediate=True, lock=f"dry-run:{key}"):
            found = self._x(
                "SELECT id FROM strikes WHERE intent_key = ? AND status = ? AND principal = ? "
                "ORDER BY id DESC LIMIT 1" + self.FOR_UPDATE,
                (key, StrikeStatus.DRY_RUN, fields["principal"]),
            ).fetchone()
            if found is None:
                return self.insert(**fields)
            fields.pop("created_at", None)
            return self.update(int(found["id"]), **fields)

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
                last = self._last_to_author(req.platform, str(req.row.get("author", "")))
                why = policy.author_cooldown(
                    req.cooldown_days,
                    last,
                    req.platform,
                    str(req.row.get("author", "")),
                    now,
                    str(req.row.get("principal") or ""),
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
                self._consume(use, now, row, req.sent)
            return Verdict(row=row)

    def _holding(self, req: ClaimRequest, now: float) -> Strike | None:
        """The earlier claim that holds this target, or this (or a near-identical) post."""
        if req.target:
            return self._strike(
                f"SELECT * FROM strikes WHERE platform = ? AND target = ? AND action = ? "
                f"AND status IN ({_HOLDING}) ORDER BY id DESC LIMIT 1",
                (req.platform, req.target, req.action, *HOLDING),
            )
        same = self.same_intent(str(req.row["intent_key"]))
        if same is not None or not req.cooldown_days:
            return same
        since = now - req.cooldown_days * 86400
        rows = self._x(
            f"SELECT * FROM strikes WHERE platform = ? AND target = '' AND action = ? "
            f"AND status IN ({_HOLDING}) AND created_at >= ? ORDER BY id DESC LIMIT 500",
            (req.platform, StrikeAction.POST, *HOLDING, since),
        )
        text = str(req.row["content"])
        for row in rows:
            if similarity(text, row["content"]) >= SIMILAR:
                return self._row(row)
        return None

    def _count(self, platform: str, action: str, since: float) -> int:
        return int(
            self._x(
                f"SELECT COUNT(*) AS n FROM strikes WHERE platform = ? AND action = ? "
                f"AND status IN ({_WRITING}) AND created_at >= ?",
                (platform, action, *WRITING, since),
            ).fetchone()["n"]
        )

    def _last_write(self, platform: str) -> float | None:
        row = self._x(
            f"SELECT MAX(created_at) AS last FROM strikes WHERE platform = ? AND status IN ({_WRITING})",
            (platform, *WRITING),
        ).fetchone()
        return float(row["last"]) if row and row["last"] is not None else None

    def _last_to_author(self, platform: str, author: str) -> Strike | None:
        """The latest write to ``author`` that engaged them: sent, in flight or unsure. A
        hand-off counts once it is posted (a waiting one may never be)."""
        if not author:
            return None
        return self._strike(
            f"SELECT * FROM strikes WHERE platform = ? AND author = ? AND action IN ({_ENGAGING}) "
            f"AND target != '' AND status IN ({_WRITING}) ORDER BY created_at DESC LIMIT 1",
            (platform, author, *ENGAGING, *WRITING),
        )

    # -- other questions ------------------------------------------------------------------

    def same_intent(self, key: str) -> Strike | None:
        return self._strike(
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
                rows = self._x(
                    f"SELECT DISTINCT target FROM strikes WHERE platform = ? AND target IN "
                    f"({_marks(chunk)}) AND status IN ({_HOLDING})",
                    (platform, *chunk, *HOLDING),
                )
                found.update((platform, r["target"]) for r in rows)
        return found

    def unsettled(self) -> list[Strike]:
        return self._strikes(
            f"SELECT * FROM strikes WHERE status IN ({_UNSETTLED}) ORDER BY id", UNSETTLED
        )

    def settle(self, strike_id: int, status: StrikeStatus, **fields: Any) -> Strike | None:
        """Move an unsettled row to ``status``; None if someone settled it already."""
        with self._transaction(immediate=True):
            row = self._strike(
                f"SELECT * FROM strikes WHERE id = ? AND status IN ({_UNSETTLED}){self.FOR_UPDATE}",
                (strike_id, *UNSETTLED),
            )
            if row is None:
                return None
            return self.update(strike_id, status=status, **fields)

    def take_settling(self, strike_id: int, by: str, now: float, lease_s: float) -> Strike | None:
        """Compare-and-set: this unsettled row is ``by``'s to read back for ``lease_s``, unless
        another holds an unexpired lease; the row, or None. One atomic UPDATE on both engines. A
        lease ending more than two leases off came from a clock step ahead: it is taken too."""
        taken = self._x(
            f"UPDATE strikes SET settling_by = ?, settling_until = ? WHERE id = ? "
            f"AND status IN ({_UNSETTLED}) AND (settling_until <= ? OR settling_until > ?) "
            "RETURNING id",
            (by, now + lease_s, strike_id, *UNSETTLED, now, now + 2 * lease_s),
        ).fetchone()
        return self.get(strike_id) if taken else None

    def release_settling(self, strike_id: int, by: str) -> None:
        """``by``'s read-back is over: the row is free for the next one at once."""
        self._x(
            "UPDATE strikes SET settling_by = '', settling_until = 0 "
            "WHERE id = ? AND settling_by = ?",
            (strike_id, by),
        )

    def count_readback(self, strike_id: int) -> int:
        """One more spaced read-back found this unsettled row absent; the count now (0 if
        the row is settled already)."""
        row = self._x(
            f"UPDATE strikes SET readbacks = readbacks + 1 WHERE id = ? AND status IN ({_UNSETTLED}) "
            "RETURNING readbacks",
            (strike_id, *UNSETTLED),
        ).fetchone()
        return int(row["readbacks"]) if row else 0

    def history(
        self,
        platform: str | None = None,
        status: StrikeStatus | None = None,
        limit: int = 50,
        principal: str | None = None,
    ) -> list[Strike]:
        """The newest rows first; ``principal``: only that caller's (None: everyone's)."""
        return self.history_page(HistoryFilter(platform or "", status, principal), None, limit)

    # -- failure pause ------------------------------------------------------------------

    def record_failure(self, platform: str, reason: str, pause_after: int) -> int:
        now = time.time()
        self._x(
            "INSERT INTO platform_health (platform, failures, paused_reason, updated_at) VALUES (?, 1, '', ?) "
            "ON CONFLICT(platform) DO UPDATE SET failures = platform_health.failures + 1, updated_at = ?",
            (platform, now, now),
        )
        failures = int(
            self._x(
                "SELECT failures FROM platform_health WHERE platform = ?", (platform,)
            ).fetchone()["failures"]
        )
        if failures >= pause_after:
            self._x(
                "UPDATE platform_health SET paused_reason = ? WHERE platform = ?",
                (f"{failures} write failures in a row; last: {reason}", platform),
            )
        return failures

    def record_success(self, platform: str) -> None:
        self.clear_pause(platform)

    def clear_pause(self, platform: str) -> None:
        self._x(
            "INSERT INTO platform_health (platform, failures, paused_reason, updated_at) VALUES (?, 0, '', ?) "
            "ON CONFLICT(platform) DO UPDATE SET failures = 0, paused_reason = '', updated_at = ?",
            (platform, time.time(), time.time()),
        )

    def paused(self, platform: str) -> str:
        row = self._x(
            "SELECT paused_reason FROM platform_health WHERE platform = ?", (platform,)
        ).fetchone()
        return str(row["paused_reason"]) if row else ""

    # -- inbox cursors (the shared record's copy; see inbox_record) ---------------------

    def inbox_cursor(self, platform: str) -> str | None:
        row = self._x(
            "SELECT next_since FROM inbox_cursors WHERE platform = ?", (platform,)
        ).fetchone()
        return str(row["next_since"]) if row else None

    def set_inbox_cursor(self, platform: str, cursor: str) -> None:
        self._x(
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
            return self._x(sql, (key, new)).rowcount == 1
        sql = "UPDATE inbox_cursors SET next_since = ? WHERE platform = ? AND next_since = ?"
        return self._x(sql, (new, key, old)).rowcount == 1


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
