"""One page of history with filters, a mixin of `StrikeStore`; keyset-paged on the id, so
the 10,000th row costs what the first does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
    def _row(self, row: Any) -> Strike | None:  # pragma: no cover - the store's
        raise NotImplementedError

    def history_page(
        self, which: HistoryFilter, before: int | None = None, limit: int = 50
    ) -> list[Strike]:
        """Up to ``limit`` rows older than record ``before`` (None: the newest), newest
        first. Ask for one more than shown to know whether an older page exists."""
        query = "SELECT * FROM strikes WHERE 1=1"
        args: list[Any] = []
        if before is not None:
            query += " AND id < ?"
            args.append(before)
        if which.principal is not None:
            query += " AND principal = ?"
            args.append(which.principal)
        if which.platform:
            query += " AND platform = ?"
            args.append(which.platform)
        if which.status is not None:
            query += " AND status = ?"
            args.append(str(which.status))
        if which.since is not None:
            query += " AND created_at >= ?"
            args.append(which.since)
        if which.until is not None:
            query += " AND created_at < ?"
            args.append(which.until)
        query += " ORDER BY id DESC LIMIT ?"
        args.append(limit)
        return [s for s in (self._row(r) for r in self._x(query, args)) if s is not None]
