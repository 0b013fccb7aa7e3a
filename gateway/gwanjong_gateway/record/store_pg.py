"""The strike record in PostgreSQL (`[store] url = "postgresql://…"`): one record for any
number of gateway processes.

The same `StrikeStore` logic; what differs is the connection (psycopg 3, autocommit, rows
as dicts), the placeholders, and the lock: `decide` starts its transaction with
`pg_advisory_xact_lock` on the platform's name, so checks and claim are serialised per
platform account across every process on the database, as BEGIN IMMEDIATE does for a file.
Unique partial indexes still refuse a second live claim. psycopg is an optional
dependency (`gwanjong[postgres]`), imported only when a URL is configured.
"""

from __future__ import annotations

import re
import select
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from enum import Enum
from typing import Any

from gwanjong_gateway.extras import require_psycopg
from gwanjong_gateway.record import migrations
from gwanjong_gateway.record.store import BUSY_TIMEOUT_S, StrikeStore

CONNECT_TIMEOUT_S = 3
STATEMENT_TIMEOUT_S = 5.0


def connection_options(
    name: str,
    lock_timeout_s: float = BUSY_TIMEOUT_S,
    connect_timeout_s: int = CONNECT_TIMEOUT_S,
    statement_timeout_s: float = STATEMENT_TIMEOUT_S,
) -> dict[str, Any]:
    """libpq settings that bound every wait: connecting, each statement, another process's
    lock (that one is "busy"), and a silent server (TCP keepalives, and tcp_user_timeout:
    unacknowledged data gives up after about the statement timeout)."""
    ms = int(statement_timeout_s * 1000)
    return {
        "connect_timeout": connect_timeout_s,
        "options": f"-c lock_timeout={int(lock_timeout_s * 1000)} -c statement_timeout={ms}",
        "keepalives": 1,
        "keepalives_idle": 5,
        "keepalives_interval": 2,
        "keepalives_count": 3,
        "tcp_user_timeout": ms + 1000,
        "application_name": name,
    }


_PLACEHOLDER = re.compile(r"\?")


class PostgresStrikeStore(StrikeStore):
    FOR_UPDATE = " FOR UPDATE"
    STEPS = migrations.POSTGRES

    def __init__(  # pyright: ignore[reportMissingSuperCall]
        self,
        url: str,
        busy_timeout_s: float = BUSY_TIMEOUT_S,
        connect_timeout_s: int = CONNECT_TIMEOUT_S,
        statement_timeout_s: float = STATEMENT_TIMEOUT_S,
    ) -> None:
        """Raises psycopg.Error when the database cannot be reached or migrated, and
        MissingExtra when psycopg is not installed."""
        psycopg = require_psycopg()
        from psycopg.rows import dict_row

        self.url = url
        self.path = None
        self._db: Any = psycopg.connect(
            url,
            autocommit=True,
            **connection_options(
                "gwanjong", busy_timeout_s, connect_timeout_s, statement_timeout_s
            ),
        )
        self._db.row_factory = dict_row
        try:
            self._migrate()
        except BaseException:
            self._db.close()
            raise

    def stale(self) -> bool:
        """Whether this idle connection is dead already, known without a round trip: the
        server closed it or wrote to it while idle (a restart, a crash, an admin's
        terminate: an idle connection is sent nothing else), or psycopg saw it break."""
        if self._db.closed or self._db.broken:
            return True
        try:
            readable, _, _ = select.select([self._db.fileno()], [], [], 0)
        except (OSError, ValueError):  # no socket any more
            return True
        return bool(readable)

    def _x(self, sql: str, args: Sequence[Any] = ()) -> Any:
        # psycopg dumps an Enum by its name; the record holds the value
        values = tuple(str(a.value) if isinstance(a, Enum) else a for a in args)
        return self._db.execute(_PLACEHOLDER.sub("%s", sql), values)

    @contextmanager
    def _transaction(self, immediate: bool, lock: str = "") -> Generator[None, None, None]:
        """One transaction; ``immediate`` first takes the advisory lock named ``lock``
        (held until commit or rollback). Without it the transaction only reads, at
        REPEATABLE READ: all its statements see one snapshot, as a SQLite read transaction
        does (at READ COMMITTED a claim committed between two of them is half seen: its
        target free, yet counted against the cap)."""
        with self._db.transaction():
            if not immediate:
                self._x("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            elif lock:
                self._x("SELECT pg_advisory_xact_lock(hashtext(?))", (f"gwanjong:{lock}",))
            yield
