"""One page of history with filters, a mixin of `StrikeStore`; keyset-paged on the id, so
the 10,000th row costs what the first does.
"""

from __future__ import annotations

from dataclasses import dataclass

from gwanjong_gateway.record.sql.statements import Statements, where
from gwanjong_gateway.rules.ledger import Strike, StrikeStatus


@dataclass(frozen=True)
class HistoryFilter:
    """Which rows a history page shows. ``principal`` None: everyone's."""

    platform: str = ""
    status: StrikeStatus | None = None
    principal: str | None = None
    since: float | None = None  # created_at >= since
    until: float | None = None  # created_at < until


class HistoryRows(Statements):
    def history_page(
        self, which: HistoryFilter, before: int | None = None, limit: int = 50
    ) -> list[Strike]:
        """Up to ``limit`` rows older than record ``before`` (None: the newest), newest
        first. Ask for one more than shown to know whether an older page exists."""
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
