"""One page of history with filters, a mixin of `StrikeStore`; keyset-paged on the id, so
the 10,000th row costs what the first does.
"""

from __future__ import annotations

from dataclasses import dataclass

from gwanjong_gateway.record.statements import Statements
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
        where = [
            ("id < ?", before),
            ("principal = ?", which.principal),
            ("platform = ?", which.platform or None),
            ("status = ?", None if which.status is None else str(which.status)),
            ("created_at >= ?", which.since),
            ("created_at < ?", which.until),
        ]
        used = [(clause, value) for clause, value in where if value is not None]
        query = "".join(f" AND {clause}" for clause, _ in used)
        return self.engine.rows(
            Strike,
            f"SELECT * FROM strikes WHERE 1=1{query} ORDER BY id DESC LIMIT ?",
            [*(value for _, value in used), limit],
        )
