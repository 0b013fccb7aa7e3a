"""Where gwanjong keeps its files on each OS (platformdirs; docs/operate/where-things-live.md),
and how it keeps them private: the state dir 0700, record files 0600, an exclusive lock
(`fcntl.flock` or `msvcrt.locking`). Older places are used first when they exist.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import tempfile
from collections.abc import Generator, Mapping
from enum import StrEnum
from pathlib import Path

APP = "gwanjong"
CONFIG_FILE = "gateway.toml"


def legacy_config_file(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/gwanjong/gateway.toml` (else `~/.config/…`): where older versions looked."""
    env = os.environ if environ is None else environ
    base = Path(env.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / APP / CONFIG_FILE


def user_config_file(environ: Mapping[str, str] | None = None) -> Path:
    """The user's gateway.toml: the legacy place if the file is there, else the OS one
    (on Linux and the BSDs both are the XDG config dir)."""
    legacy = legacy_config_file(environ)
    if legacy.exists() or sys.platform not in ("win32", "darwin"):
        return legacy
    from platformdirs import user_config_dir  # the OS convention's

    return Path(user_config_dir(APP, appauthor=False)) / CONFIG_FILE


def default_state_dir() -> Path:
    """`~/.gwanjong` if it exists (older versions), else the OS user data dir."""
    legacy = Path.home() / ".gwanjong"
    if legacy.is_dir():
        return legacy
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP, appauthor=False))


def private_dir(path: Path) -> Path:
    """Make `path`; every directory this creates (missing parents too) is 0700."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for p in reversed(missing):
        p.mkdir(mode=0o700, exist_ok=True)
    return path


def private_file(path: Path, truncate: bool = False) -> Path:
    """Create `path` 0600 if it is not there (its parent 0700); an existing file keeps its
    mode. SQLite gives its -wal and -shm files the mode of the database file."""
    private_dir(path.parent)
    if truncate:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        return path
    # Never open an existing file here: closing any descriptor of a file drops every POSIX
    # lock this process holds on it, so a SQLite connection opened beside another (the
    # usage log's and the spend ledger's, the record's pool) would lose its locks and let
    # another process commit over it. Only the one process that creates the file closes it.
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    return path


def replace_private(path: Path, text: str, mode: int | None = None) -> None:
    """Write `text` to `path` exactly, atomically (temp file + rename); the file is 0600
    in a 0700 folder, or (another program's file) keeps ``mode`` in a folder made as usual."""
    if mode is None:
        private_dir(path.parent)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())  # on disk before the rename: never an empty file after a crash
        if mode is not None:
            with contextlib.suppress(OSError):  # Windows has no modes to keep
                os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def exclusive_lock(path: Path) -> Generator[None, None, None]:
    """Hold an exclusive lock on `path` (created 0600) until the block ends; waits for it."""
    private_dir(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if sys.platform == "win32":
            import msvcrt

            while True:  # LK_LOCK gives up after ~10 s; keep waiting, as flock does
                try:
                    msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
                    break
                except OSError:
                    continue
            try:
                yield
            finally:
                os.lseek(fd, 0, os.SEEK_SET)
                msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
            yield  # closing the descriptor releases the lock
    finally:
        os.close(fd)


class Trouble(StrEnum):
    """Why a file in the state dir (or beside it) could not be used."""

    BUSY = "busy"  # another connection holds the lock: try again shortly
    READ_ONLY = "read_only"  # a read-only mount, or no permission: retried once writable
    FULL = "full"  # the disk or the quota: retried once there is room
    UNREADABLE = "unreadable"  # not a strike record SQLite can read (corrupt, not a database)


_DISK = {e: Trouble.FULL for e in (errno.ENOSPC, errno.EDQUOT)} | {
    e: Trouble.READ_ONLY for e in (errno.EROFS, errno.EACCES, errno.EPERM)
}


def disk_trouble(exc: OSError) -> Trouble | None:
    """What ``exc`` says of the disk, from its errno (each OS's own numbers); None: neither."""
    return _DISK.get(exc.errno or 0)
