"""Platform reads that outlive the scout that asked for them.

Agent frameworks give a call about 5 s, so scout answers within `[gateway]
answer_within_s` and names the rest as still coming; their reads go on here, keyed by
(topic, platform), and the next scout on that topic takes them once. Untaken ones are
dropped after `KEEP_S`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from gwanjong_shared.contract.models import Post

#: how long an arrived read waits for the scout that takes it
KEEP_S = 300.0

Key = tuple[str, str]


@dataclass
class Read:
    """One platform's answer to one topic: its posts, and what went wrong."""

    posts: list[Post] = field(default_factory=list[Post])
    problems: list[str] = field(default_factory=list[str])


def key_of(topic: str, platform: str) -> Key:
    return (" ".join(topic.lower().split()), platform)


class Late:
    def __init__(self, clock: Callable[[], float] = time.monotonic, keep_s: float = KEEP_S):
        self.clock = clock
        self.keep_s = keep_s
        self._reads: dict[Key, tuple[float, asyncio.Task[Read]]] = {}

    def read(self, key: Key, start: Callable[[], Coroutine[Any, Any, Read]]) -> asyncio.Task[Read]:
        """The read under way (or arrived) for `key`, else a new one."""
        now = self.clock()
        for old in [k for k, (at, t) in self._reads.items() if t.done() and now - at > self.keep_s]:
            del self._reads[old]
        kept = self._reads.get(key)
        if kept is not None and not _failed(kept[1]):
            return kept[1]
        task = asyncio.get_running_loop().create_task(start())
        self._reads[key] = (now, task)
        return task

    def take(self, key: Key) -> None:
        """The read was used: the next scout on the topic asks the platform again."""
        self._reads.pop(key, None)

    def close(self) -> None:
        """The gateway is closing: the reads still on the way are dropped."""
        for _at, task in self._reads.values():
            task.cancel()
        self._reads.clear()

    def pending(self) -> int:
        return sum(1 for _at, task in self._reads.values() if not task.done())


def _failed(task: asyncio.Task[Read]) -> bool:
    """A kept read that ended with nothing but problems: stale news of a failure (the
    platform may be down now, or back), so the next scout asks again."""
    if task.cancelled():
        return True
    if not task.done():
        return False  # still on the way: the next scout waits on it
    if task.exception() is not None:
        return True
    read = task.result()
    return not read.posts and bool(read.problems)
