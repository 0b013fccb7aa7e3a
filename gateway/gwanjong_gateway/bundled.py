"""The platforms installed packages declare, in the `gwanjong.platforms` entry-point group.

Package metadata is read only when asked: config needs it for a bundled platform's
defaults, hosting to build one in-process, setup to list what could be set up."""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points

GROUP = "gwanjong.platforms"


def entry_point(name: str) -> EntryPoint | None:
    found = list(entry_points(group=GROUP, name=name))
    return found[0] if found else None


def installed() -> list[str]:
    """Platform names that installed packages declare."""
    return sorted({ep.name for ep in entry_points(group=GROUP)})
