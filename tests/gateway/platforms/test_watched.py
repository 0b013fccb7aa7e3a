"""The gateway's background start-up runs as a watched task: a failure is logged and
kept for status, never swallowed; a stop is not a failure."""

from __future__ import annotations

import asyncio
import logging

import pytest

from gwanjong_gateway.platforms.watched import Watched


async def _settle() -> None:
    for _ in range(20):  # loop turns, not time: the task and its done-callback run
        await asyncio.sleep(0)


@pytest.mark.anyio
async def test_a_failure_is_logged_and_kept_and_a_stop_is_not_a_failure(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def boom() -> None:
        raise RuntimeError("https://example.test/?token=s3cr3t")

    watched = Watched("start-up")
    with caplog.at_level(logging.ERROR, logger="gwanjong_gateway.platforms.watched"):
        watched.start(boom())
        await _settle()
    assert watched.failure == "start-up stopped: RuntimeError"
    assert "start-up stopped: RuntimeError" in caplog.text
    assert "s3cr3t" not in caplog.text and "s3cr3t" not in watched.failure
    await watched.stop()

    started = asyncio.Event()

    async def forever() -> None:
        started.set()
        await asyncio.Event().wait()

    watched = Watched("settle loop")
    watched.start(forever())
    await started.wait()
    await watched.stop()
    await _settle()
    assert watched.failure == ""
