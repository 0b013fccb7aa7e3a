"""What the record's row mixins (approvals, handles, history pages) need of `StrikeStore`:
one statement (`_x`, ``?`` placeholders), one transaction (`_transaction`), the engine."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gwanjong_gateway.record.engine import Engine


class Statements:
    #: appended to a SELECT that is followed by an UPDATE of the same row
    FOR_UPDATE: str = ""
    engine: Engine

    def _x(self, sql: str, args: Sequence[Any] = ()) -> Any:  # pragma: no cover - the store's
        raise NotImplementedError

    def _transaction(
        self, immediate: bool, lock: str = ""
    ) -> AbstractContextManager[None]:  # pragma: no cover - the store's
        raise NotImplementedError
