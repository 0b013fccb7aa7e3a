"""The lifespan's background start-up: a failure is logged as it happens, and stopping the
task neither raises its outcome nor leaves it running."""

from __future__ import annotations

import logging

import anyio
import anyio.lowlevel
import pytest

from gwanjong_gateway.background import start_watched, stop_watched


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the lifespan's task is an asyncio task


@pytest.mark.anyio
async def test_a_failure_is_logged_when_it_happens(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="gwanjong_gateway.background")

    async def broken() -> None:
        raise RuntimeError("no platforms today")

    task = start_watched(broken(), "platform start-up")
    with anyio.fail_after(30):
        while not task.done():
            await anyio.lowlevel.checkpoint()
    await anyio.lowlevel.checkpoint()  # done callbacks run on the next loop turn
    assert "platform start-up failed: RuntimeError: no platforms today" in caplog.text
    await stop_watched(task)  # already failed: nothing raised


@pytest.mark.anyio
async def test_stopping_cancels_and_waits(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="gwanjong_gateway.background")
    finished: list[str] = []

    async def forever() -> None:
        try:
            await anyio.sleep_forever()
        finally:
            finished.append("cleaned up")

    task = start_watched(forever(), "settler")
    await anyio.lowlevel.checkpoint()
    await stop_watched(task)
    assert task.cancelled() and finished == ["cleaned up"]
    assert caplog.text == ""  # a cancellation is not a failure
