"""The one storage layer under every table (docs/develop/architecture.md, "One storage
layer"); every engine difference is here. Statements use ``?``; one holding ``%`` is
refused (values are always bound). One `Engine` is one connection behind one lock.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import select
import sqlite3
import threading
import time
import typing
from collections.abc import Callable, Generator, Sequence
from contextlib import closing, contextmanager, suppress
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar, cast

from gwanjong_gateway.paths import private_file
from gwanjong_gateway.record.sql.sqlite_errors import Trouble, trouble

#: How long a statement waits for another process's lock before giving up.
BUSY_TIMEOUT_S = 2.0
CONNECT_TIMEOUT_S = 3
STATEMENT_TIMEOUT_S = 5.0
R = TypeVar("R")


_PLAIN = frozenset({str, int, float, type(None)})


def _stored(value: Any) -> Any:
    """A value as a column holds it: an enum by value, a flag as 0 or 1, a dict or list
    as JSON (the one encoding of every table's rows)."""
    if type(value) in _PLAIN:  # the common case, checked at once
        return value
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, default=str)
    return value


def _values(args: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(_stored(a) for a in args)


@functools.lru_cache(maxsize=512)
def _pg_sql(sql: str) -> str:
    if "%" in sql:
        raise ValueError("a statement must not hold '%': bind the value with '?' instead")
    return sql.replace("?", "%s")


def _reader(hint: Any) -> Callable[[Any], Any] | None:
    """How a column's value becomes a field's (the inverse of `_stored`); None: as it is."""
    if typing.get_origin(hint) in (dict, list):
        return json.loads
    if hint is bool or (isinstance(hint, type) and issubclass(hint, Enum)):
        return cast("Callable[[Any], Any]", hint)
    return None


@functools.cache
def _shape(cls: type) -> tuple[tuple[str, ...], tuple[tuple[int, Callable[[Any], Any]], ...]]:
    """A row class's columns (a dataclass's fields or a named tuple's), and the readers of
    those that are not stored as they are, by position."""
    hints = typing.get_type_hints(cls)
    names: tuple[str, ...] | None = getattr(cls, "_fields", None)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls))
    readers = ((i, _reader(hints[n])) for i, n in enumerate(names))
    return names, tuple((i, r) for i, r in readers if r is not None)


def columns(cls: type) -> tuple[str, ...]:
    """A row class's columns, in order."""
    return _shape(cls)[0]


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
    synced = False  # each commit on disk before it returns (SQLite's `synchronous=FULL`)

    def __init__(self, db: Any, busy_timeout_s: float) -> None:
        self.db = db
        self.busy_timeout_s = busy_timeout_s
        self.lock = threading.RLock()

    def _sql(self, sql: str) -> str:
        return sql

    def x(self, sql: str, args: Sequence[Any] = ()) -> Any:
        """Run one statement (``?`` placeholders); the cursor."""
        with self.lock:
            return self.db.execute(self._sql(sql), _values(args))

    @contextmanager
    def transaction(self, immediate: bool, lock: str = "") -> Generator[None, None, None]:
        """``immediate`` takes the write lock first (``lock`` names what PostgreSQL locks;
        the whole file is SQLite's), so check-then-write is atomic across processes."""
        with self.lock:
            self._retry(lambda: self.db.execute("BEGIN IMMEDIATE" if immediate else "BEGIN"))
            try:
                yield
            except BaseException:
                if self.db.in_transaction:  # SQLite rolls back itself on some errors (disk full)
                    self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    @contextmanager
    def unsynced(self) -> Generator[None, None, None]:
        """Within, a commit may return before it is on disk (a SQLite record's `synced` set
        aside): for rows no guarantee rests on, which an OS crash may take back. WAL is one
        file appended in order: the next synced commit's fsync takes them to disk too, and
        an OS crash before it loses only them, never an earlier commit."""
        with self.lock:
            if self.synced:
                self.db.execute("PRAGMA synchronous=NORMAL")
            try:
                yield
            finally:
                if self.synced:
                    self.db.execute("PRAGMA synchronous=FULL")

    def migrate(self, steps: Sequence[Sequence[str]], lock: str) -> None:
        """Apply the steps this database lacks, in order, in one transaction (``lock``: the
        PostgreSQL lock every process takes)."""
        with self.transaction(immediate=True, lock=lock):
            self.x("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            current = int(self.value("SELECT MAX(version) FROM schema_version") or 0)
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
        """Every row of one statement as a ``cls`` (a dataclass or named tuple whose fields
        are the columns), each value read back as its field's type (`_stored`'s inverse)."""
        with self.lock:
            return self._typed(cls, self.x(sql, args).fetchall())

    def each(self, cls: type[R], sql: str, args: Sequence[Any] = ()) -> Generator[R, None, None]:
        """`rows` one at a time, under the lock until the last (close it when done early): a
        read of tens of thousands keeps none alive, so the garbage collector is not woken to
        scan them."""
        names, readers = _shape(cls)
        with self.lock:
            cursor = self.x(sql, args)
            # (psycopg builds its description anew on each read: only SQLite's is looked at)
            if (
                self.postgres
                or readers
                or not hasattr(cls, "_make")
                or tuple(d[0] for d in cursor.description or ()) != names
            ):
                while batch := cursor.fetchmany(1000):
                    yield from self._typed(cls, batch)
                return
            # a plain named tuple on SQLite: its own tuples, retyped in C (no sqlite3.Row,
            # no __init__ per row)
            cursor.row_factory = None
            yield from map(functools.partial(cast(Any, tuple).__new__, cls), cursor)

    def _typed(self, cls: type[R], rows: list[Any]) -> list[R]:
        names, readers = _shape(cls)
        # the columns from a row, not the cursor's description (psycopg builds that anew)
        if rows and tuple(rows[0].keys()) != names:  # rare: by name
            by_name = {names[i]: read for i, read in readers}
            return [
                cls(**{k: by_name[k](v) if k in by_name else v for k, v in dict(r).items()})
                for r in rows
            ]
        values = [r.values() for r in rows] if self.postgres else rows
        if not readers:  # by position, and a named tuple has no __init__ to run: cheaper
            make = getattr(cls, "_make", None)
            return [make(v) for v in values] if make is not None else [cls(*v) for v in values]
        found: list[R] = []
        for v in values:
            fields = list(v)
            for i, read in readers:
                fields[i] = read(fields[i])
            found.append(cls(*fields))
        return found

    def row(self, cls: type[R], sql: str, args: Sequence[Any] = ()) -> R | None:
        """The first row of one statement as a ``cls`` (see `rows`), or None."""
        found = self.rows(cls, sql, args)
        return found[0] if found else None

    def tuples(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.lock:  # psycopg's rows are dicts, in the columns' order
            return [tuple(r.values()) if self.postgres else tuple(r) for r in self.x(sql, args)]

    def value(self, sql: str, args: Sequence[Any] = ()) -> Any:
        """The first column of the first row, or None when there is no row."""
        found = self.tuples(sql, args)
        return found[0][0] if found else None

    def insert(
        self, table: str, rows: Sequence[Any], returning: str = "", omit: Sequence[str] = ()
    ) -> Any:
        """Insert ``rows``, dataclasses or named tuples (``omit``: fields left to the
        column's default) or dicts of the same columns; with ``returning``, one row and
        that column of it."""
        mapping = isinstance(rows[0], dict)
        columns: Sequence[str] = (
            list(rows[0]) if mapping else _shape(cast("type[Any]", type(rows[0])))[0]
        )
        names = [n for n in columns if n not in omit]
        sql = f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
        values = [[r[n] if mapping else getattr(r, n) for n in names] for r in rows]
        if returning:
            return self.value(f"{sql} RETURNING {returning}", values[0])
        with self.lock, closing(self.db.cursor()) as cur:
            cur.executemany(self._sql(sql), [_values(v) for v in values])
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

    def stale(self) -> bool:
        return False

    def lost(self, exc: BaseException) -> bool:
        return False

    def close(self) -> None:
        with self.lock:
            self.db.close()


class SqliteEngine(Engine):
    """A SQLite file (0600 in a 0700 dir; its -wal and -shm follow it), WAL."""

    def __init__(
        self, path: Path, busy_timeout_s: float = BUSY_TIMEOUT_S, synced: bool = False
    ) -> None:
        """``synced``: each commit on disk before it returns, so an OS crash or power loss
        cannot take back a commit the write journal already counts as recorded."""
        private_file(path)
        self.path, self.synced = path, synced
        db = sqlite3.connect(
            str(path), timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        super().__init__(db, busy_timeout_s)
        try:
            db.row_factory = sqlite3.Row
            self._retry(lambda: db.execute("PRAGMA journal_mode=WAL"))
            # NORMAL under WAL: durable through a process crash, not an OS one
            db.execute(f"PRAGMA synchronous={'FULL' if synced else 'NORMAL'}")
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
        ms = int(statement_timeout_s * 1000)
        # libpq settings that bound every wait: connecting, each statement, a lock, a silent server
        db: Any = psycopg.connect(
            url,
            autocommit=True,
            row_factory=dict_row,
            connect_timeout=connect_timeout_s,
            options=f"-c lock_timeout={int(busy_timeout_s * 1000)} -c statement_timeout={ms}",
            keepalives=1,
            keepalives_idle=5,
            keepalives_interval=2,
            keepalives_count=3,
            tcp_user_timeout=ms + 1000,
            application_name=name,
        )
        super().__init__(db, busy_timeout_s)

    def _sql(self, sql: str) -> str:
        return _pg_sql(sql)

    @contextmanager
    def transaction(self, immediate: bool, lock: str = "") -> Generator[None, None, None]:
        """One transaction; ``immediate`` first takes the advisory lock named ``lock``
        (held until commit or rollback). A transaction that does not lock runs at
        REPEATABLE READ: all its statements see one snapshot, as a SQLite read
        transaction does (at READ COMMITTED a claim committed between two of them is half
        seen: its target free, yet counted against the cap)."""
        with self.lock, self.db.transaction():
            if not immediate:
                self.x("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            elif lock:
                self.x("SELECT pg_advisory_xact_lock(hashtext(?))", (lock,))
            yield

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
        from gwanjong_gateway.record.sql import pg_errors

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

    @contextmanager
    def use(self) -> Generator[Engine, None, None]:
        with self._lock:
            if self._engine is None:
                self._engine = self._open()
            engine = self._engine
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
