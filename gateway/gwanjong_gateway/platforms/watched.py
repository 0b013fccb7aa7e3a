"""A background task that is watched: its failure is logged and kept for `status`,
never swallowed."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)


class Watched:
    def __init__(self, what: str) -> None:
        self.what = what
        #: why the task stopped, when it failed ("" while it runs or after a clean end)
        self.failure = ""
        self._task: asyncio.Task[None] | None = None

    def start(self, work: Coroutine[Any, Any, None]) -> None:
        self.failure = ""
        self._task = asyncio.get_running_loop().create_task(work)
        self._task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        if task.cancelled():
            return
        exc = task.exception()
        if exc is None:
            return
        # The type only: an exception's text may quote a URL with a token in it.
        self.failure = f"{self.what} stopped: {type(exc).__name__}"
        log.error("%s", self.failure, exc_info=exc if log.isEnabledFor(logging.DEBUG) else None)

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is None or task.done():
            return
        task.cancel()
        # A failure while stopping was logged by _done already.
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
