"""The strike record: every write attempt, before and after the call, in SQLite (WAL).

One row per intent (platform, target, action, content hash). The row is written *before*
the platform is called (status `pending`) and updated with what really happened, so a
crash between the two leaves a `pending` row that the next strike reconciles by reading
the platform back, instead of writing again. The record survives restarts and is what
`gwanjong history` prints.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
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
    status        TEXT NOT NULL,          -- pending | posted | dry_run | handoff | declined | refused | failed | unknown
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

# Statuses after which the target counts as acted on.
DONE = ("posted", "handoff", "pending", "unknown")


def content_hash(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:16]


def intent_key(platform: str, target: str, action: str, text: str) -> str:
    return hashlib.sha256(
        f"{platform}|{target}|{action}|{content_hash(text)}".encode()
    ).hexdigest()[:24]


@dataclass(frozen=True)
class Strike:
    id: int
    intent_key: str
    platform: str
    target: str
    target_url: str
    author: str
    opportunity: str
    action: str
    content_hash: str
    content: str
    title: str
    mode: str
    status: str
    reason: str
    approver: str
    result_id: str
    result_url: str
    context: dict[str, Any]
    policy: list[Any]
    created_at: float
    updated_at: float

    def public(self) -> dict[str, Any]:
        """What a tool result or `history` shows (the context stays in the record)."""
        return {
            "record": self.id,
            "platform": self.platform,
            "action": self.action,
            "target": self.target_url or self.target,
            "status": self.status,
            "reason": self.reason,
            "approver": self.approver,
            "url": self.result_url,
            "at": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(self.updated_at)) + "Z",
        }


class StrikeStore:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(
            str(path), timeout=10, isolation_level=None, check_same_thread=False
        )
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        self._db.close()

    # -- rows ------------------------------------------------------------------------

    def _row(self, row: sqlite3.Row | None) -> Strike | None:
        if row is None:
            return None
        data = dict(row)
        data["context"] = json.loads(data["context"])
        data["policy"] = json.loads(data["policy"])
        return Strike(**data)

    def get(self, strike_id: int) -> Strike | None:
        return self._row(
            self._db.execute("SELECT * FROM strikes WHERE id = ?", (strike_id,)).fetchone()
        )

    def insert(self, **fields: Any) -> Strike:
        now = time.time()
        fields.setdefault("created_at", now)
        fields.setdefault("updated_at", now)
        for key in ("context", "policy"):
            if key in fields and not isinstance(fields[key], str):
                fields[key] = json.dumps(fields[key], ensure_ascii=False, default=str)
        cols = ", ".join(fields)
        marks = ", ".join("?" for _ in fields)
        cur = self._db.execute(
            f"INSERT INTO strikes ({cols}) VALUES ({marks})", tuple(fields.values())
        )
        strike = self.get(int(cur.lastrowid or 0))
        assert strike is not None
        return strike

    def update(self, strike_id: int, **fields: Any) -> Strike:
        fields["updated_at"] = time.time()
        for key in ("context", "policy"):
            if key in fields and not isinstance(fields[key], str):
                fields[key] = json.dumps(fields[key], ensure_ascii=False, default=str)
        sets = ", ".join(f"{k} = ?" for k in fields)
        self._db.execute(f"UPDATE strikes SET {sets} WHERE id = ?", (*fields.values(), strike_id))
        strike = self.get(strike_id)
        assert strike is not None
        return strike

    # -- questions the policy asks ----------------------------------------------------

    def acted_on(self, platform: str, target: str, action: str) -> Strike | None:
        """The latest strike that did (or may have) act on this target."""
        if not target:
            return None
        marks = ", ".join("?" for _ in DONE)
        return self._row(
            self._db.execute(
                f"SELECT * FROM strikes WHERE platform = ? AND target = ? AND action = ? AND status IN ({marks}) "
                "ORDER BY id DESC LIMIT 1",
                (platform, target, action, *DONE),
            ).fetchone()
        )

    def claimed(self, platform: str, target: str, action: str, key: str) -> Strike | None:
        """The live claim that blocks a new one (what the unique indexes enforce)."""
        return self.acted_on(platform, target, action) if target else self.same_intent(key)

    def same_intent(self, key: str) -> Strike | None:
        marks = ", ".join("?" for _ in DONE)
        return self._row(
            self._db.execute(
                f"SELECT * FROM strikes WHERE intent_key = ? AND status IN ({marks}) ORDER BY id DESC LIMIT 1",
                (key, *DONE),
            ).fetchone()
        )

    def acted_targets(self) -> set[tuple[str, str]]:
        marks = ", ".join("?" for _ in DONE)
        rows = self._db.execute(
            f"SELECT DISTINCT platform, target FROM strikes WHERE target != '' AND status IN ({marks})",
            DONE,
        )
        return {(r["platform"], r["target"]) for r in rows}

    def written_since(self, platform: str, action: str | None, since: float) -> int:
        query = "SELECT COUNT(*) FROM strikes WHERE platform = ? AND status = 'posted' AND updated_at >= ?"
        args: tuple[Any, ...] = (platform, since)
        if action:
            query += " AND action = ?"
            args += (action,)
        return int(self._db.execute(query, args).fetchone()[0])

    def last_write(self, platform: str) -> float | None:
        row = self._db.execute(
            "SELECT MAX(updated_at) FROM strikes WHERE platform = ? AND status = 'posted'",
            (platform,),
        ).fetchone()
        return float(row[0]) if row and row[0] is not None else None

    def last_to_author(self, platform: str, author: str) -> Strike | None:
        if not author:
            return None
        return self._row(
            self._db.execute(
                "SELECT * FROM strikes WHERE platform = ? AND author = ? AND action != 'upvote' "
                "AND status IN ('posted', 'handoff') ORDER BY updated_at DESC LIMIT 1",
                (platform, author),
            ).fetchone()
        )

    def unsettled(self) -> list[Strike]:
        rows = self._db.execute(
            "SELECT * FROM strikes WHERE status IN ('pending', 'unknown') ORDER BY id"
        )
        return [s for s in (self._row(r) for r in rows) if s is not None]

    def history(
        self, platform: str | None = None, status: str | None = None, limit: int = 50
    ) -> list[Strike]:
        query, args = "SELECT * FROM strikes WHERE 1=1", []
        if platform:
            query += " AND platform = ?"
            args.append(platform)
        if status:
            query += " AND status = ?"
            args.append(status)
        query += " ORDER BY id DESC LIMIT ?"
        args.append(limit)
        return [s for s in (self._row(r) for r in self._db.execute(query, args)) if s is not None]

    # -- failure pause ------------------------------------------------------------------

    def record_failure(self, platform: str, reason: str, pause_after: int) -> int:
        now = time.time()
        self._db.execute(
            "INSERT INTO platform_health (platform, failures, paused_reason, updated_at) VALUES (?, 1, '', ?) "
            "ON CONFLICT(platform) DO UPDATE SET failures = failures + 1, updated_at = ?",
            (platform, now, now),
        )
        failures = int(
            self._db.execute(
                "SELECT failures FROM platform_health WHERE platform = ?", (platform,)
            ).fetchone()[0]
        )
        if failures >= pause_after:
            self._db.execute(
                "UPDATE platform_health SET paused_reason = ? WHERE platform = ?",
                (f"{failures} write failures in a row; last: {reason}", platform),
            )
        return failures

    def record_success(self, platform: str) -> None:
        self.clear_pause(platform)

    def clear_pause(self, platform: str) -> None:
        self._db.execute(
            "INSERT INTO platform_health (platform, failures, paused_reason, updated_at) VALUES (?, 0, '', ?) "
            "ON CONFLICT(platform) DO UPDATE SET failures = 0, paused_reason = '', updated_at = ?",
            (platform, time.time(), time.time()),
        )

    def paused(self, platform: str) -> str:
        row = self._db.execute(
            "SELECT paused_reason FROM platform_health WHERE platform = ?", (platform,)
        ).fetchone()
        return str(row[0]) if row else ""
