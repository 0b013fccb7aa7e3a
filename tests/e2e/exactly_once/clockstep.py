"""Run the gateway with a wall clock a test can step (tests only; production has no such
hook): ``python clockstep.py OFFSET_FILE gwanjong_gateway ARGS…``. ``time.time`` is
patched before the gateway is imported, so every clock it binds (the record's, the
settler's, the policy's) reads the real time plus the seconds in OFFSET_FILE, read again
on every call whose file has changed. The monotonic clock is left alone, as a real step
leaves it."""

from __future__ import annotations

import os
import runpy
import sys
import time
from collections.abc import Callable

_real = time.time


def _stepped(path: str) -> Callable[[], float]:
    state: dict[str, float] = {"stamp": -1.0, "offset": 0.0}

    def now() -> float:
        try:
            stamp = os.stat(path).st_mtime_ns
            if stamp != state["stamp"]:
                with open(path) as f:
                    state["offset"], state["stamp"] = float(f.read() or 0), stamp
        except (OSError, ValueError):
            pass
        return _real() + state["offset"]

    return now


def main() -> None:
    time.time = _stepped(sys.argv[1])
    module = sys.argv[2]
    sys.argv = [module, *sys.argv[3:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
