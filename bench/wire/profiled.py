"""Run a module under cProfile (CPU time) in every thread (the gateway serves from a worker thread, so
`python -m cProfile` would see only the main one waiting); the merged stats are written to
OUT when the process exits.

    python -m bench.wire.profiled OUT MODULE [ARGS...]
"""

from __future__ import annotations

import atexit
import cProfile
import pstats
import runpy
import sys
import threading
import time
from typing import Any

_profiles: list[cProfile.Profile] = []


def _start(*_: Any) -> None:
    # the first profile event of a new thread: give it a profiler of its own, timed by the
    # thread's CPU (wall time would charge a thread for the GIL another one holds)
    profile = cProfile.Profile(time.thread_time)
    _profiles.append(profile)
    profile.enable()


def _write(out: str) -> None:
    for profile in _profiles:
        profile.disable()
    stats = pstats.Stats(_profiles[0])
    for profile in _profiles[1:]:
        stats.add(profile)
    stats.dump_stats(out)


def main() -> None:
    out, module, *args = sys.argv[1:]
    atexit.register(_write, out)
    threading.setprofile(_start)
    _start()
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
