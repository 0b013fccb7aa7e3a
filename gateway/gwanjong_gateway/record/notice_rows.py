"""The record's notices (docs/use/notifications.md), a mixin of `StrikeStore`: each event
or period is claimed by inserting its key, so exactly one process tells it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gwanjong_gateway.record.statements import Statements


def notices_table(time_type: str) -> list[str]:
    """The migration step that adds the table (record/migrations.py)."""
    return [
        f"""
CREATE TABLE IF NOT EXISTS notices (
    key         TEXT PRIMARY KEY,        -- "approval_waiting:a12", or "period:<n>" for a message
    claimed_at  {time_type} NOT NULL,
    claimed_by  TEXT NOT NULL DEFAULT '', -- the process that won the claim
    summary     TEXT NOT NULL DEFAULT '', -- a message's counts (never platform text)
    sent_at     {time_type} NOT NULL DEFAULT 0,
    error       TEXT NOT NULL DEFAULT ''  -- a delivery that gave up: channel (scheme+host) and why
)""",
        "CREATE INDEX IF NOT EXISTS notices_claimed ON notices (claimed_at)",
    ]


@dataclass(frozen=True)
class Notice:
    """A message sent (or given up on): when, what it said, what went wrong."""

    claimed_at: float
    summary: str
    sent_at: float
    error: str


class NoticeRows(Statements):
    def claim_notices(self, keys: Sequence[str], now: float, by: str) -> list[str]:
        """Claim each key not claimed before; the ones this call won, in order."""
        won: list[str] = []
        with self._transaction(immediate=True):
            for key in dict.fromkeys(keys):
                row = self._x(
                    "INSERT INTO notices (key, claimed_at, claimed_by) VALUES (?, ?, ?) "
                    "ON CONFLICT (key) DO NOTHING RETURNING key",
                    (key, now, by),
                ).fetchone()
                if row is not None:
                    won.append(key)
        return won

    def prune_notices(self, older_than: float) -> int:
        """Forget notices claimed before ``older_than`` (longer ago than anything they
        could name still waits: a hand-off waits a year at most); how many."""
        return len(
            self._x(
                "DELETE FROM notices WHERE claimed_at < ? RETURNING key", (older_than,)
            ).fetchall()
        )

    def unclaimed(self, keys: Sequence[str]) -> list[str]:
        """The keys no process has claimed yet (a read: the claim still decides)."""
        if not keys:
            return []
        marks = ", ".join("?" * len(keys))
        rows = self._x(f"SELECT key FROM notices WHERE key IN ({marks})", list(keys))
        taken = {str(r["key"]) for r in rows.fetchall()}
        return [k for k in keys if k not in taken]

    def note_message(self, key: str, summary: str, sent_at: float, error: str) -> None:
        self._x(
            "UPDATE notices SET summary = ?, sent_at = ?, error = ? WHERE key = ?",
            (summary, sent_at, error, key),
        )

    def last_notice(self) -> Notice | None:
        row: Any = self._x(
            "SELECT claimed_at, summary, sent_at, error FROM notices "
            "WHERE key LIKE ? AND summary != '' ORDER BY claimed_at DESC LIMIT 1",
            ("period:%",),  # bound: PostgreSQL's driver reads a '%' in the SQL as its own
        ).fetchone()
        if row is None:
            return None
        return Notice(
            float(row["claimed_at"]), str(row["summary"]), float(row["sent_at"]), str(row["error"])
        )

    def health_rows(self) -> list[tuple[str, int, str, float]]:
        """Each platform's last known write health: name, failures in a row, why paused
        ("" = not), when it last changed."""
        return self.engine.tuples(
            "SELECT platform, failures, paused_reason, updated_at FROM platform_health "
            "ORDER BY platform"
        )
