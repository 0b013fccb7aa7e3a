"""Run a module under cProfile (CPU time) in every thread (the gateway serves from a worker thread, so
`python -m cProfile` would see only the main one waiting); the merged stats are written to
OUT when the process exits. SIGUSR1 marks the start of what to keep: what was spent before
it (start-up, warm-up) is subtracted, so OUT is the warm calls alone.

    python -m bench.wire.profiled OUT MODULE [ARGS...]
"""

from __future__ import annotations

import atexit
import cProfile
import pstats
import runpy
import signal
import sys
import threading
import time
from typing import Any

_profiles: list[cProfile.Profile] = []
#: the stats at SIGUSR1, subtracted at exit: (file, line, name) -> (cc, nc, tt, ct, callers)
_before: dict[Any, Any] = {}


def _start(*_: Any) -> None:
    # the first profile event of a new thread: give it a profiler of its own, timed by the
    # thread's CPU (wall time would charge a thread for the GIL another one holds)
    profile = cProfile.Profile(time.thread_time)
    _profiles.append(profile)
    profile.enable()


class _Counted:
    """A profiler's counters as pstats reads them, without stopping it (pstats would)."""

    def __init__(self, profile: cProfile.Profile) -> None:
        profile.snapshot_stats()  # pyright: ignore[reportAttributeAccessIssue]
        self.stats = dict(profile.stats)  # pyright: ignore[reportAttributeAccessIssue]

    def create_stats(self) -> None:
        pass


def _merged() -> pstats.Stats:
    stats = pstats.Stats()
    for profile in list(_profiles):
        stats.add(_Counted(profile))  # pyright: ignore[reportArgumentType]
    return stats


def _mark(*_: Any) -> None:
    _before.clear()
    _before.update(_merged().stats)  # pyright: ignore[reportAttributeAccessIssue]


def _minus(now: tuple[Any, ...], then: tuple[Any, ...]) -> tuple[Any, ...]:
    callers = (
        {k: _minus(v, then[4].get(k, (0, 0, 0, 0))) for k, v in now[4].items()}
        if len(now) > 4
        else {}
    )
    figures = tuple(a - b for a, b in zip(now[:4], then[:4], strict=True))
    return (*figures, callers) if len(now) > 4 else figures


def _write(out: str) -> None:
    for profile in _profiles:
        profile.disable()
    stats = _merged()
    table: dict[Any, Any] = stats.stats  # pyright: ignore[reportAttributeAccessIssue]
    for key, then in _before.items():
        if key in table:
            table[key] = _minus(table[key], then)
    stats.dump_stats(out)


def main() -> None:
    out, module, *args = sys.argv[1:]
    atexit.register(_write, out)
    signal.signal(signal.SIGUSR1, _mark)
    threading.setprofile(_start)
    _start()
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
