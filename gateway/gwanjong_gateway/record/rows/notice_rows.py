"""The record's notices (docs/use/notifications.md), a mixin of `StrikeStore`: each event
or period is claimed by inserting its key, so exactly one process tells it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gwanjong_gateway.record.sql.statements import Statements, marks


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
                if self.engine.x(
                    "INSERT INTO notices (key, claimed_at, claimed_by) VALUES (?, ?, ?) "
                    "ON CONFLICT (key) DO NOTHING",
                    (key, now, by),
                ).rowcount:
                    won.append(key)
        return won

    def prune_notices(self, older_than: float) -> int:
        """Forget notices claimed before ``older_than`` (longer ago than anything they
        could name still waits: a hand-off waits a year at most); how many."""
        return self.engine.x("DELETE FROM notices WHERE claimed_at < ?", (older_than,)).rowcount

    def unclaimed(self, keys: Sequence[str]) -> list[str]:
        """The keys no process has claimed yet (a read: the claim still decides)."""
        if not keys:
            return []
        rows = self.engine.tuples(f"SELECT key FROM notices WHERE key IN ({marks(keys)})", keys)
        taken = {key for (key,) in rows}
        return [k for k in keys if k not in taken]

    def found(self, since: float, prefix: str = "found:") -> list[str]:
        """What watchers found since ``since`` (their `found:` keys; told or not), or the
        keys of another ``prefix`` (`owed:`: what a channel could not take)."""
        rows = self.engine.tuples(
            "SELECT key FROM notices WHERE key LIKE ? AND claimed_at >= ?",
            (f"{prefix}%", since),  # bound: see last_notice
        )
        return [key for (key,) in rows]

    def take_notices(self, keys: Sequence[str]) -> list[str]:
        """Forget each key; the ones this call took (another process took the rest)."""
        with self._transaction(immediate=True):
            return [
                k for k in keys if self.engine.x("DELETE FROM notices WHERE key = ?", (k,)).rowcount
            ]

    def note_message(self, key: str, summary: str, sent_at: float, error: str) -> None:
        self.engine.x(
            "UPDATE notices SET summary = ?, sent_at = ?, error = ? WHERE key = ?",
            (summary, sent_at, error, key),
        )

    def last_notice(self) -> Notice | None:
        return self.engine.row(
            Notice,
            "SELECT claimed_at, summary, sent_at, error FROM notices "
            "WHERE key LIKE ? AND summary != '' ORDER BY claimed_at DESC LIMIT 1",
            ("period:%",),  # bound: PostgreSQL's driver reads a '%' in the SQL as its own
        )

    def health_rows(self) -> list[tuple[str, int, str, float]]:
        """Each platform's last known write health: name, failures in a row, why paused
        ("" = not), when it last changed."""
        return self.engine.tuples(
            "SELECT platform, failures, paused_reason, updated_at FROM platform_health "
            "ORDER BY platform"
        )
