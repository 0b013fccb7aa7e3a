"""A SQLite record's files: the database with its -wal and -shm, which belong to it by name
and so move with it (`doctor --repair` moves whole sets)."""

from __future__ import annotations

import os
from pathlib import Path

REBUILD = ".rebuild-"
BROKEN = ".broken-"


def sidecars(db: Path) -> list[Path]:
    return [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]


def move_set(src: Path, dst: Path) -> None:
    for a, b in zip(sidecars(src), sidecars(dst), strict=True):
        if a.exists():
            os.replace(a, b)


def finish_repair(db: Path) -> None:
    """Finish a `doctor --repair` a crash stopped after it moved the damaged record aside:
    its rebuilt record was complete by then, and a fresh empty one would forget every claim.
    The old record's -wal and -shm, if still here, join it first (never applied to the new)."""
    if db.exists():
        return
    found = db.parent.glob(db.name + REBUILD + "*")
    built = sorted(p for p in found if not p.name.endswith(("-wal", "-shm")))
    if not built:
        return
    fresh = built[-1]
    stamp = fresh.name.removeprefix(db.name + REBUILD)
    try:
        aside = sidecars(db.with_name(db.name + BROKEN + stamp))
        for old, moved in zip(sidecars(db)[1:], aside[1:], strict=True):
            if old.exists():
                os.replace(old, moved)
        move_set(fresh, db)
    except FileNotFoundError:  # another process finished it first
        pass
