"""The one storage layer under every table (docs/develop/architecture.md, "One storage
layer"); every engine difference is here. Statements use ``?``; one holding ``%`` is
refused (values are always bound). One `Engine` is one connection behind one lock.
"""

from __future__ import annotations

import dataclasses
import functools
import select
import sqlite3
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager, suppress
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar, cast

from gwanjong_gateway.paths import private_file
from gwanjong_gateway.record.sqlite_errors import Trouble, trouble

#: How long a statement waits for another process's lock before giving up.
BUSY_TIMEOUT_S = 2.0
CONNECT_TIMEOUT_S = 3
STATEMENT_TIMEOUT_S = 5.0
R = TypeVar("R")


def connection_options(
    name: str,
    lock_timeout_s: float = BUSY_TIMEOUT_S,
    connect_timeout_s: int = CONNECT_TIMEOUT_S,
    statement_timeout_s: float = STATEMENT_TIMEOUT_S,
) -> dict[str, Any]:
    """libpq settings that bound every wait: connecting, each statement, a lock, a silent server."""
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


def _values(args: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(a.value if isinstance(a, Enum) else a for a in args)


@functools.lru_cache(maxsize=512)
def _pg_sql(sql: str) -> str:
    if "%" in sql:
        raise ValueError("a statement must not hold '%': bind the value with '?' instead")
    return sql.replace("?", "%s")


class SchemaError(Exception):
    """The database was written by a newer gwanjong (a schema version this one lacks)."""


class Unavailable(Exception):
    """The store cannot be opened: its configured URL is unusable (a `${VAR}` not set) or
    psycopg is not installed; the message says what to do."""


class Engine:
    """One connection to one database, behind one lock (see the module's doc)."""

    #: appended to a SELECT that is followed by an UPDATE of the same row
    FOR_UPDATE = ""
    postgres = False

    def __init__(self, db: Any, busy_timeout_s: float) -> None:
        self.db = db
        self.busy_timeout_s = busy_timeout_s
        self.lock = threading.RLock()

    def x(self, sql: str, args: Sequence[Any] = ()) -> Any:
        """Run one statement (``?`` placeholders); the cursor."""
        with self.lock:  # sqlite3 binds a StrEnum as the text it is
            return self.db.execute(sql, tuple(args))

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """One statement for each of ``rows`` (in the caller's transaction, if any)."""
        with self.lock:
            self.db.executemany(sql, [_values(r) for r in rows])

    @contextmanager
    def transaction(
        self, immediate: bool, lock: str = "", write: bool = False
    ) -> Generator[None, None, None]:
        """``immediate`` takes the write lock first (``lock`` names what PostgreSQL locks;
        the whole file is SQLite's), so check-then-write is atomic across processes."""
        with self.lock:
            self._retry(lambda: self.db.execute("BEGIN IMMEDIATE" if immediate else "BEGIN"))
            try:
                yield
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def migrate(self, steps: Sequence[Sequence[str]], lock: str) -> None:
        """Apply the steps this database lacks, in order, in one transaction (``lock``: the
        PostgreSQL lock every process takes)."""
        with self.transaction(immediate=True, lock=lock):
            self.x("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = self.x("SELECT MAX(version) AS v FROM schema_version").fetchone()
            current = int(row["v"] or 0)
            if current > len(steps):
                raise SchemaError(
                    f"schema version {current} is newer than this gwanjong knows "
                    f"({len(steps)}); upgrade gwanjong"
                )
            for version, statements in enumerate(steps, 1):
                if version > current:
                    for statement in statements:
                        self._ddl(statement)
                    self.x("INSERT INTO schema_version (version) VALUES (?)", (version,))

    def _ddl(self, statement: str) -> None:
        self.x(statement)

    def rows(self, cls: type[R], sql: str, args: Sequence[Any] = ()) -> list[R]:
        """Every row of one statement as a ``cls`` (a dataclass or named tuple named by its
        columns)."""
        with self.lock:
            return list(self._typed(cls, self.x(sql, args)))

    def each(self, cls: type[R], sql: str, args: Sequence[Any] = ()) -> Generator[R, None, None]:
        """`rows` one at a time, under the lock until the last: a read of tens of thousands
        keeps none alive, so the garbage collector is not woken to scan them."""
        with self.lock:
            yield from self._typed(cls, self.x(sql, args))

    def _typed(self, cls: type[R], cursor: Any) -> Iterator[R]:
        names = tuple(d[0] for d in cursor.description or ())
        if names != _field_names(cls):
            return (cls(**dict(r)) for r in cursor)
        # the common case, 2x cheaper: by position
        if self.postgres:  # psycopg's rows are dicts, in the columns' order
            return (cls(*r.values()) for r in cursor)
        if hasattr(cls, "_make"):  # a named tuple: SQLite's own tuples, retyped in C
            cursor.row_factory = None  # (no sqlite3.Row, no __init__ per row)
            retype: Callable[[Any], R] = functools.partial(cast(Any, tuple).__new__, cls)
            return map(retype, cursor)
        return (cls(*r) for r in cursor)

    def insert(
        self, table: str, rows: Sequence[Any], returning: str = "", omit: Sequence[str] = ()
    ) -> Any:
        """Insert ``rows``, dataclasses or named tuples (``omit``: fields left to the column's
        default); with ``returning``, one row and that column of it."""
        row_type = cast("type[Any]", type(rows[0]))
        names = [n for n in _field_names(row_type) if n not in omit]
        sql = f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
        values = [tuple(getattr(r, n) for n in names) for r in rows]
        if returning:
            return self.one(f"{sql} RETURNING {returning}", values[0])[returning]
        self.many(sql, values)
        return None

    def _retry(self, step: Any) -> Any:
        """``step`` again while SQLite says busy without having waited, within the busy timeout."""
        end = time.monotonic() + self.busy_timeout_s
        pause = 0.005
        while True:
            try:
                return step()
            except sqlite3.OperationalError as exc:
                if trouble(exc) is not Trouble.BUSY or time.monotonic() + pause > end:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.1)

    def one(self, sql: str, args: Sequence[Any] = ()) -> Any:
        with self.lock:
            return self.x(sql, args).fetchone()

    def tuples(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.lock:
            return [tuple(r) for r in self.x(sql, args)]

    def stale(self) -> bool:
        return False

    def lost(self, exc: BaseException) -> bool:
        return False

    def close(self) -> None:
        with self.lock:
            self.db.close()


class SqliteEngine(Engine):
    """A SQLite file (0600 in a 0700 dir; its -wal and -shm follow it), WAL."""

    def __init__(self, path: Path, busy_timeout_s: float = BUSY_TIMEOUT_S) -> None:
        private_file(path)
        self.path = path
        db = sqlite3.connect(
            str(path), timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        super().__init__(db, busy_timeout_s)
        try:
            db.row_factory = sqlite3.Row
            self._retry(lambda: db.execute("PRAGMA journal_mode=WAL"))
            db.execute("PRAGMA synchronous=NORMAL")  # WAL: durable through a process crash
        except BaseException:
            db.close()
            raise

    def _ddl(self, statement: str) -> None:
        # SQLite has no ADD COLUMN IF NOT EXISTS: a file from before the numbered steps
        # may have the column already (usage.db), so look first.
        head, found, rest = statement.partition(" ADD COLUMN IF NOT EXISTS ")
        if found:
            table, column = head.removeprefix("ALTER TABLE "), rest.split()[0]
            if any(r[1] == column for r in self.tuples(f"PRAGMA table_info({table})")):
                return
            statement = f"{head} ADD COLUMN {rest}"
        self.x(statement)


class PostgresEngine(Engine):
    """psycopg 3, autocommit, rows as dicts. psycopg is an optional dependency
    (`gwanjong[postgres]`), imported only when a URL is configured."""

    FOR_UPDATE = " FOR UPDATE"
    postgres = True

    def __init__(
        self,
        url: str,
        name: str = "gwanjong",
        busy_timeout_s: float = BUSY_TIMEOUT_S,
        connect_timeout_s: int = CONNECT_TIMEOUT_S,
        statement_timeout_s: float = STATEMENT_TIMEOUT_S,
    ) -> None:
        from gwanjong_gateway.extras import require_psycopg

        psycopg = require_psycopg()
        from psycopg.rows import dict_row

        self.url = url
        db: Any = psycopg.connect(
            url,
            autocommit=True,
            row_factory=dict_row,
            **connection_options(name, busy_timeout_s, connect_timeout_s, statement_timeout_s),
        )
        super().__init__(db, busy_timeout_s)

    def x(self, sql: str, args: Sequence[Any] = ()) -> Any:
        with self.lock:
            return self.db.execute(_pg_sql(sql), _values(args))

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self.lock, self.db.cursor() as cur:
            cur.executemany(_pg_sql(sql), [_values(r) for r in rows])

    @contextmanager
    def transaction(
        self, immediate: bool, lock: str = "", write: bool = False
    ) -> Generator[None, None, None]:
        """One transaction; ``immediate`` first takes the advisory lock named ``lock``
        (held until commit or rollback). A transaction that neither locks nor writes
        runs at REPEATABLE READ: all its statements see one snapshot, as a SQLite read
        transaction does (at READ COMMITTED a claim committed between two of them is half
        seen: its target free, yet counted against the cap)."""
        with self.lock, self.db.transaction():
            if not immediate and not write:
                self.x("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            elif lock:
                self.x("SELECT pg_advisory_xact_lock(hashtext(?))", (lock,))
            yield

    def tuples(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        from psycopg.rows import tuple_row

        with self.lock, self.db.cursor(row_factory=tuple_row) as cur:
            return list(cur.execute(_pg_sql(sql), _values(args)).fetchall())

    def stale(self) -> bool:
        """Whether this idle connection is dead, known without a round trip (the server closed it
        or wrote to it while idle, or psycopg saw it break)."""
        if self.db.closed or self.db.broken:
            return True
        try:
            readable, _, _ = select.select([self.db.fileno()], [], [], 0)
        except (OSError, ValueError):  # no socket any more
            return True
        return bool(readable)

    def lost(self, exc: BaseException) -> bool:
        from gwanjong_gateway.record import pg_errors

        return bool(self.db.closed or pg_errors.connection_lost(exc))


class Lazy:
    """One engine, opened on first use (no file until then) and dropped when its connection is
    lost: the usage log's and the spend ledger's."""

    def __init__(self, open_engine: Callable[[], Engine]) -> None:
        self._open = open_engine
        self._engine: Engine | None = None
        self._lock = threading.Lock()

    @property
    def opened(self) -> bool:
        return self._engine is not None

    def get(self) -> Engine:
        with self._lock:
            if self._engine is None:
                self._engine = self._open()
            return self._engine

    @contextmanager
    def use(self) -> Generator[Engine, None, None]:
        engine = self.get()
        try:
            yield engine
        except Exception as exc:
            if engine.lost(exc):
                with self._lock:
                    if self._engine is engine:
                        self._engine = None
                with suppress(Exception):  # already broken: closing is best effort
                    engine.close()
            raise

    def close(self) -> None:
        with self._lock:
            engine, self._engine = self._engine, None
        if engine is not None:
            engine.close()


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    """A row class's columns: a dataclass's fields or a named tuple's."""
    fields: tuple[str, ...] | None = getattr(cls, "_fields", None)
    return fields if fields is not None else tuple(f.name for f in dataclasses.fields(cls))
