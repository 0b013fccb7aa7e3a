"""What every part of `StrikeStore` (approvals, handles, hand-offs, notices, history pages)
stands on: its engine (``?`` placeholders), one transaction, a strike row read, inserted or
updated (rows as `Strike`s, the engine's encodings both ways)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gwanjong_gateway.rules.ledger import Strike

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from gwanjong_gateway.record.sql.engine import Engine

#: the strike record's columns: a `Strike`'s fields
COLUMNS = frozenset(f.name for f in dataclasses.fields(Strike))


def _columns(fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` if each names a column (a name that is not one is a TypeError, never SQL)."""
    unknown = fields.keys() - COLUMNS
    if unknown:
        raise TypeError(f"not a strike record column: {', '.join(sorted(unknown))}")
    return fields


def marks(values: Sequence[object]) -> str:
    """One ``?`` per value, for ``IN (…)``."""
    return ", ".join("?" * len(values))


def where(*conditions: tuple[str, Any]) -> tuple[str, list[Any]]:
    """``WHERE 1=1 AND …`` of the conditions whose value is not None, and those values."""
    used = [(clause, value) for clause, value in conditions if value is not None]
    return "WHERE 1=1" + "".join(f" AND {c}" for c, _ in used), [v for _, v in used]


class Statements:
    engine: Engine

    def _transaction(self, immediate: bool, lock: str = "") -> AbstractContextManager[None]:
        """`Engine.transaction`, its PostgreSQL lock named in gwanjong's own namespace."""
        return self.engine.transaction(immediate, f"gwanjong:{lock}" if lock else "")

    def get(self, strike_id: int) -> Strike | None:
        return self.engine.row(Strike, "SELECT * FROM strikes WHERE id = ?", (strike_id,))

    def insert(self, **fields: Any) -> Strike:
        """A new row of ``fields``; a column left out takes its default (no ``id``: the next)."""
        now = fields.pop("now", None) or time.time()
        row = _columns({"created_at": now, "updated_at": now, **fields})
        strike = self.get(int(self.engine.insert("strikes", [row], returning="id")))
        assert strike is not None
        return strike

    def update(self, strike_id: int, **fields: Any) -> Strike:
        fields["updated_at"] = fields.pop("now", None) or time.time()
        sets = ", ".join(f"{k} = ?" for k in _columns(fields))
        self.engine.x(f"UPDATE strikes SET {sets} WHERE id = ?", (*fields.values(), strike_id))
        strike = self.get(strike_id)
        assert strike is not None
        return strike
