"""The platforms installed packages declare, in the `gwanjong.platforms` entry-point group.

Package metadata is read only when asked: config needs it for a bundled platform's
defaults, hosting to build one in-process, setup to list what could be set up."""

from __future__ import annotations

import functools
import sys
from importlib.metadata import EntryPoint, entry_points

GROUP = "gwanjong.platforms"


def _declared() -> dict[str, EntryPoint]:
    """Every declaration, read once per import path (scanning package metadata is slow;
    what is installed changes only with where packages are looked for)."""
    return _declared_on(tuple(sys.path))


@functools.cache
def _declared_on(path: tuple[str, ...]) -> dict[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for ep in entry_points(group=GROUP):
        found.setdefault(ep.name, ep)
    return found


def entry_point(name: str) -> EntryPoint | None:
    return _declared().get(name)


def installed() -> list[str]:
    """Platform names that installed packages declare."""
    return sorted(_declared())
