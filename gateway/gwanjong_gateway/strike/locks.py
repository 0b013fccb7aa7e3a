"""One lock per key (strike's per-target lock within a process), kept only while someone
holds or waits for it, so the dict holds only the targets being struck right now.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Hashable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import anyio

K = TypeVar("K", bound=Hashable)


@dataclass
class _Entry:
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    users: int = 0  # holding or waiting


class KeyedLocks(Generic[K]):
    def __init__(self) -> None:
        self._entries: dict[K, _Entry] = {}

    def __len__(self) -> int:
        """How many keys are held or waited on now."""
        return len(self._entries)

    @asynccontextmanager
    async def hold(self, key: K) -> AsyncGenerator[None, None]:
        # No await between the lookup and the count: one event loop, so no one slips in.
        entry = self._entries.setdefault(key, _Entry())
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            if entry.users == 0:
                del self._entries[key]
