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


def run_until_signal(
    serve: Callable[[], Coroutine[Any, Any, None]],
    stop: Callable[[], Coroutine[Any, Any, None]],
    signals: tuple[signal.Signals, ...] = (signal.SIGTERM, signal.SIGINT),
    backend_options: dict[str, Any] | None = None,
) -> None:
    """Run `serve` until it returns; on one of `signals`, run `stop` instead and return.
    ``backend_options``: anyio's (default: uvloop when installed)."""
    options = loop_options() if backend_options is None else backend_options
    tokens: list[anyio.lowlevel.EventLoopToken] = []  # the loop's, once it runs
    errors: list[BaseException] = []
    finished = threading.Event()
    received: list[int] = []

    async def main() -> None:
        tokens.append(anyio.lowlevel.current_token())
        await serve()

    def run() -> None:
        try:
            anyio.run(main, backend_options=options)
        except BaseException as exc:  # handed to the main thread, which raises it
            errors.append(exc)
        finally:
            finished.set()

    def on_signal(signum: int, _frame: Any) -> None:
        received.append(signum)

    previous = {s: signal.signal(s, on_signal) for s in signals}
    try:
        threading.Thread(target=run, name="gwanjong-serve", daemon=True).start()
        while not finished.wait(_POLL_S):
            if received and tokens:
                # RunFinishedError: the transport ended meanwhile and closed everything itself.
                with contextlib.suppress(anyio.RunFinishedError):
                    anyio.from_thread.run(stop, token=tokens[0])
                return
        if errors:
            raise errors[0]
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
