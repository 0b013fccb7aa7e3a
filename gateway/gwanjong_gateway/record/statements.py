"""What the record's row mixins (approvals, handles, history pages) need of `StrikeStore`:
one statement (`_x`, ``?`` placeholders), one transaction (`_transaction`), the engine."""

from __future__ import annotations

import json
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from gwanjong_gateway.rules.ledger import Strike, StrikeAction, StrikeStatus

if TYPE_CHECKING:
    from gwanjong_gateway.record.engine import Engine


class Statements:
    #: appended to a SELECT that is followed by an UPDATE of the same row
    FOR_UPDATE: str = ""
    engine: Engine

    def _x(self, sql: str, args: Sequence[Any] = ()) -> Any:
        """Run one statement (``?`` placeholders); the cursor, rows readable by column name."""
        return self.engine.x(sql, args)

    @contextmanager
    def _transaction(self, immediate: bool, lock: str = "") -> Generator[None, None, None]:
        """``immediate`` takes the write lock first, so check-then-insert is atomic across
        connections and processes (``lock`` names what PostgreSQL locks)."""
        with self.engine.transaction(immediate, f"gwanjong:{lock}" if lock else ""):
            yield

    def _row(self, row: Any) -> Strike:
        data = dict(row)
        data["status"] = StrikeStatus(data["status"])
        data["action"] = StrikeAction(data["action"])
        data["context"] = json.loads(data["context"])
        data["policy"] = json.loads(data["policy"])
        data["needs_person"] = bool(data.get("needs_person", 0))
        return Strike(**data)

    def _strike(self, sql: str, args: Sequence[Any]) -> Strike | None:
        row = self._x(sql, args).fetchone()
        return None if row is None else self._row(row)

    def _strikes(self, sql: str, args: Sequence[Any] = ()) -> list[Strike]:
        return [self._row(r) for r in self._x(sql, args)]
