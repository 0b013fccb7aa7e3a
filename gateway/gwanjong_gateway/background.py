"""A background task of the gateway's lifespan: a failure is logged when it happens (not
swallowed at shutdown), and stopping it waits for it without raising its outcome.

A plain task, not a task group: FastMCP may leave the lifespan from another task.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

import anyio

log = logging.getLogger(__name__)


def start_watched(work: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
    task = asyncio.get_running_loop().create_task(work, name=name)
    task.add_done_callback(_report)
    return task


def _report(task: asyncio.Task[None]) -> None:
    if task.cancelled():
        return
    exc = task.exception()
    if exc is not None:
        log.error("%s failed: %s: %s", task.get_name(), type(exc).__name__, exc, exc_info=exc)


async def stop_watched(task: asyncio.Task[None]) -> None:
    """Cancel `task` and wait until it has ended (its failure, if any, is already logged)."""
    task.cancel()
    with anyio.CancelScope(shield=True):
        await asyncio.wait([task])
