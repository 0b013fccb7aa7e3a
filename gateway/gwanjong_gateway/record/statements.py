"""What the record's row mixins (approvals, handles, history pages) need of `StrikeStore`:
one statement (`_x`, ``?`` placeholders), one transaction (`_transaction`), the engine."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

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
