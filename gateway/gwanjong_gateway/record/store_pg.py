"""The strike record in PostgreSQL (`[store] url = "postgresql://…"`): one record for any
number of gateway processes.

The same `StrikeStore` on a `PostgresEngine` (engine.py holds every difference): `decide`
starts its transaction with `pg_advisory_xact_lock` on the platform's name, so checks and
claim are serialised per platform account across every process on the database, as BEGIN
IMMEDIATE does for a file. Unique partial indexes still refuse a second live claim.
"""

from __future__ import annotations

from gwanjong_gateway.record.engine import (
    BUSY_TIMEOUT_S,
    CONNECT_TIMEOUT_S,
    STATEMENT_TIMEOUT_S,
    PostgresEngine,
)
from gwanjong_gateway.record.store import StrikeStore


class PostgresStrikeStore(StrikeStore):
    def __init__(  # pyright: ignore[reportMissingSuperCall]
        self,
        url: str,
        busy_timeout_s: float = BUSY_TIMEOUT_S,
        connect_timeout_s: int = CONNECT_TIMEOUT_S,
        statement_timeout_s: float = STATEMENT_TIMEOUT_S,
    ) -> None:
        """Raises psycopg.Error when the database cannot be reached or migrated, and
        MissingExtra when psycopg is not installed."""
        engine = PostgresEngine(
            url, "gwanjong", busy_timeout_s, connect_timeout_s, statement_timeout_s
        )
        self._open(engine, None)
