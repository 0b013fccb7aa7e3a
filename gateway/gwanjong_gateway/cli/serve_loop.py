"""Run the gateway until its transport ends or a signal stops it, then exit normally.

stdio reads stdin in a worker thread that cannot be interrupted, and Python waits for
non-daemon threads at exit, so after SIGTERM the process would hang. The loop runs in a
daemon thread instead; the main thread takes signals, runs `stop` on the loop and returns.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Coroutine
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel

from gwanjong_gateway.cli.lean import loop_options

_POLL_S = 0.2  # how often the main thread looks up from waiting (signals interrupt it anyway)


class _Loop:
    def __init__(
        self, serve: Callable[[], Coroutine[Any, Any, None]], backend_options: dict[str, Any]
    ) -> None:
        self._serve = serve
        self.backend_options = backend_options  # uvloop when installed (lean.loop_options)
        self.token: anyio.lowlevel.EventLoopToken | None = None
        self.started = threading.Event()
        self.finished = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            anyio.run(self._main, backend_options=self.backend_options)
        except BaseException as exc:  # handed to the main thread, which raises it
            self.error = exc
        finally:
            self.started.set()
            self.finished.set()

    async def _main(self) -> None:
        self.token = anyio.lowlevel.current_token()
        self.started.set()
        await self._serve()


def run_until_signal(
    serve: Callable[[], Coroutine[Any, Any, None]],
    stop: Callable[[], Coroutine[Any, Any, None]],
    signals: tuple[signal.Signals, ...] = (signal.SIGTERM, signal.SIGINT),
    backend_options: dict[str, Any] | None = None,
) -> None:
    """Run `serve` until it returns; on one of `signals`, run `stop` instead and return.
    ``backend_options``: anyio's (default: uvloop when installed)."""
    loop = _Loop(serve, loop_options() if backend_options is None else backend_options)
    received: list[int] = []

    def on_signal(signum: int, _frame: Any) -> None:
        received.append(signum)

    previous = {s: signal.signal(s, on_signal) for s in signals}
    try:
        thread = threading.Thread(target=loop.run, name="gwanjong-serve", daemon=True)
        thread.start()
        loop.started.wait()
        while not loop.finished.wait(_POLL_S):
            if received and loop.token is not None:
                # RunFinishedError: the transport ended meanwhile and closed everything itself.
                with contextlib.suppress(anyio.RunFinishedError):
                    anyio.from_thread.run(stop, token=loop.token)
                return
        if loop.error is not None:
            raise loop.error
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
