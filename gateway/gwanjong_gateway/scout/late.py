"""Platform reads that outlive the scout that asked for them.

Agent frameworks give a call about 5 s, so scout answers within `[gateway]
answer_within_s` and names the rest as still coming; their reads go on here, keyed by
(topic, platform), and the next scout on that topic takes them once. Untaken ones are
dropped after `KEEP_S`. The inbox keeps its listings here too, keyed by cursor.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio

from gwanjong_shared.contract import MentionList
from gwanjong_shared.contract.models import Post

#: how long an arrived read waits for the scout that takes it
KEEP_S = 300.0

Key = tuple[str, str]
T = TypeVar("T")


@dataclass
class Read:
    """One platform's answer to one topic: its posts, and what went wrong."""

    posts: list[Post] = field(default_factory=list[Post])
    problems: list[str] = field(default_factory=list[str])
    #: how many posts search found when every one was our own (left out of `posts`)
    ours: int = 0
    #: the inbox's listing (its posts are `posts`)
    listed: MentionList | None = None


def still_coming(within_s: float | None, again: str = "scout the same topic") -> str:
    return (
        f"still coming: no answer within {within_s or 0:g} s; {again} again shortly to include it"
    )


async def wait_within(
    reads: Mapping[str, asyncio.Task[T]],
    within_s: float | None,
    sleep: Callable[[float], Awaitable[None]],
    arrived: Callable[[str, T], Awaitable[None]] | None = None,
) -> None:
    """Wait for every read, or until `within_s` has passed (None: no deadline). The reads
    go on either way; `arrived` is told of each as it comes."""

    async def arrive(platform: str, task: asyncio.Task[T]) -> None:
        got = await asyncio.shield(task)  # a call that stops waiting leaves it running
        if arrived is not None:
            await arrived(platform, got)

    async with anyio.create_task_group() as tg:

        async def every() -> None:
            async with anyio.create_task_group() as each:
                for platform, task in reads.items():
                    each.start_soon(arrive, platform, task)
            tg.cancel_scope.cancel()  # every platform answered: no deadline to wait for

        tg.start_soon(every)
        if within_s is not None:
            await sleep(within_s)
            tg.cancel_scope.cancel()


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
