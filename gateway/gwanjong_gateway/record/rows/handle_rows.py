"""The record's handles (scout/handles.py), a mixin of `StrikeStore`. Keyed by the handle's
SHA-256 and always read with their principal, so anyone else's or an expired handle finds
nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gwanjong_gateway.record.sql.statements import Statements, where


@dataclass(frozen=True)
class HandleRow:
    handle_hash: str
    principal: str
    client: str
    platform: str
    opportunity: str
    scouted: str  # JSON
    drafted: str | None  # JSON
    created_at: float
    expires_at: float


@dataclass(frozen=True)
class HandleCounts:
    scouted: int
    drafted: int


class HandleRows(Statements):
    def add_handles(self, rows: Sequence[HandleRow], now: float) -> None:
        """Keep ``rows`` (new handles: their hashes are random) and drop expired ones.
        Unsynced, as `set_drafted`: a handle an OS crash takes back is only scouted again."""
        with self.engine.unsynced(), self._transaction(immediate=True, lock="handles"):
            self.engine.x("DELETE FROM handles WHERE expires_at <= ?", (now,))
            if rows:
                self.engine.insert("handles", rows)

    def handle(self, handle_hash: str, principal: str, now: float) -> HandleRow | None:
        """The live row of that handle for that principal, or None."""
        return self.engine.row(
            HandleRow,
            "SELECT * FROM handles WHERE handle_hash = ? AND principal = ? AND expires_at > ?",
            (handle_hash, principal, now),
        )

    def set_drafted(
        self, handle_hash: str, principal: str, drafted: str, expires_at: float
    ) -> bool:
        """Keep draft's context on the handle (and push its expiry); False if it is gone."""
        with self.engine.unsynced():
            cursor = self.engine.x(
                "UPDATE handles SET drafted = ?, expires_at = ? WHERE handle_hash = ? AND principal = ?",
                (drafted, expires_at, handle_hash, principal),
            )
        return bool(cursor.rowcount)

    def handle_counts(self, principal: str, client: str, now: float) -> HandleCounts:
        """How many live handles ``principal`` holds (of one client, when ``client`` is
        given), and how many of them are drafted."""
        sql, args = where(
            ("principal = ?", principal), ("expires_at > ?", now), ("client = ?", client or None)
        )
        counts = self.engine.row(
            HandleCounts,
            f"SELECT COUNT(*) AS scouted, COUNT(drafted) AS drafted FROM handles {sql}",
            args,
        )
        assert counts is not None  # COUNT answers one row
        return counts
