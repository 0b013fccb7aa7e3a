"""What went wrong with the SQLite record, read from SQLite's own error code (never from
the message, whose words vary by version and may quote a table or a path)."""

from __future__ import annotations

import sqlite3

from gwanjong_gateway.paths import Trouble, disk_trouble

__all__ = ["Trouble", "primary_code", "trouble"]

_BUSY = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
_READ_ONLY = frozenset({sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM})


def primary_code(exc: sqlite3.Error) -> int | None:
    """SQLite's primary result code (the low byte of the extended one); None for an
    error SQLite did not raise (one of ours, like a failed integrity check)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def trouble(exc: sqlite3.Error | OSError) -> Trouble:
    if isinstance(exc, OSError):
        return disk_trouble(exc) or Trouble.UNREADABLE
    code = primary_code(exc)
    if code in _BUSY:
        return Trouble.BUSY
    if code in _READ_ONLY:
        return Trouble.READ_ONLY
    if code == sqlite3.SQLITE_FULL:
        return Trouble.FULL
    return Trouble.UNREADABLE
