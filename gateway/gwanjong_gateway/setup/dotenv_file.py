"""`<state_dir>/.env` (python-dotenv's own writer and parser). A value with any control
character or Unicode line separator is refused (it could smuggle in another variable);
the file is replaced atomically, 0600, never through a symlink.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from dotenv import set_key

from gwanjong_gateway.config.load import read_dotenv
from gwanjong_gateway.paths import Trouble, disk_trouble, private_dir
from gwanjong_shared.contract.untrusted import has_hidden

MAX_VALUE_CHARS = 4096


class DotenvError(ValueError):
    """A value or file that must not be written; the text says what to do instead."""


class DotenvUnwritable(DotenvError):
    """The file could not be written (disk full, read-only): nothing was saved, the old
    file is intact; the text says what to do."""


def check_value(key: str, value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        raise DotenvError(f"{key} is empty; give its value.")
    if len(value) > MAX_VALUE_CHARS:
        raise DotenvError(
            f"{key} is {len(value)} characters; a credential is at most {MAX_VALUE_CHARS}."
        )
    if "\t" in value or "\n" in value or has_hidden(value):
        raise DotenvError(
            f"{key} holds a control character or a line/paragraph separator; "
            "give the value on one line of plain text."
        )


def save(path: Path, values: dict[str, str]) -> None:
    """Merge `values` into the file at `path`, atomically; nothing is written on error."""
    for key, value in values.items():
        check_value(key, value)
    if path.is_symlink():
        raise DotenvError(
            f"{path} is a symbolic link; gwanjong does not write through links. "
            "Replace it with a regular file, or set the variables in the environment."
        )
    if path.exists() and not path.is_file():
        raise DotenvError(f"{path} is not a regular file; remove it or pick another state_dir.")
    try:
        _replace(path, values)
    except OSError as exc:  # the old file is untouched: the rename is the only change
        raise DotenvUnwritable(_not_saved(path, exc)) from None


def _not_saved(path: Path, exc: OSError) -> str:
    trouble = disk_trouble(exc)
    if trouble is Trouble.FULL:
        return (
            f"the disk holding {path.parent} is full: nothing was saved and {path} is "
            "unchanged. Free space there, then run setup again (or set the variables in "
            "the environment)."
        )
    if trouble is Trouble.READ_ONLY:
        return (
            f"{path.parent} cannot be written ({exc.strerror}): nothing was saved and {path} "
            "is unchanged. Make it writable, or set the variables in the environment."
        )
    return (
        f"{path} could not be written ({exc.strerror or type(exc).__name__}): nothing was "
        "saved and the file is unchanged. Fix the state_dir, or set the variables in the "
        "environment."
    )


def _replace(path: Path, values: dict[str, str]) -> None:
    private_dir(path.parent)
    fd, tmp_name = tempfile.mkstemp(prefix=".env.", dir=path.parent)  # mode 0600
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            if path.exists():
                out.write(path.read_text(encoding="utf-8"))
            out.flush()
            os.fsync(out.fileno())  # a full disk fails here, not after the rename
        for key, value in sorted(values.items()):
            set_key(tmp, key, value, quote_mode="always")
        os.chmod(tmp, 0o600)
        back = read_dotenv(tmp)
        wrong = [k for k, v in values.items() if back.get(k) != v]
        if wrong:  # never install a file that does not read back as written
            raise DotenvError(f"{', '.join(wrong)} would not read back as given; not saved.")
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def overridden(values: dict[str, str], environ: dict[str, str]) -> list[str]:
    """Names the environment sets to something else: those win over the saved value."""
    return sorted(k for k, v in values.items() if k in environ and environ[k] != v)
