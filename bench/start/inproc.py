"""Where a scout's CPU goes, in one interpreter: the gateway built here (its platforms hosted
in-process, as by default) and an in-memory client, so a profiler attached to this process
(py-spy, cProfile) sees the whole path. Prints the CPU of this process for the imports, the
first scout (platform imports and first calls) and the median warm scout. A quick A/B aid
for per-call changes, not a target figure (the client's own work is included here).

    uv run python -m bench.start.inproc [--scouts N] [--pid-wait S]
    uvx py-spy record --gil -p PID ...    # with --pid-wait, attach during the warm scouts
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

T0 = time.process_time()

import anyio  # noqa: E402  (after T0: the imports are part of what is measured)
from fastmcp import Client  # noqa: E402

from bench.common import QUIET, sandbox_and_config, table, write_config  # noqa: E402
from bench.start.subjects import TOPIC  # noqa: E402
from gwanjong_gateway.cli.lean import remember_missing_modules  # noqa: E402
from gwanjong_gateway.cli.telemetry import spans_only_when_traced  # noqa: E402
from gwanjong_gateway.config.load import load  # noqa: E402
from gwanjong_gateway.server import build_gateway  # noqa: E402


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scouts", type=int, default=40)
    parser.add_argument("--pid-wait", type=float, default=0)
    args = parser.parse_args()
    for key, value in QUIET.items():
        os.environ.setdefault(key, value)
    with (
        sandbox_and_config() as (_sandbox, _config, envs),
        tempfile.TemporaryDirectory(prefix="gwanjong-inproc-") as tmp,
    ):
        config, _ = load(str(write_config(Path(tmp) / "now.toml", Path(tmp) / "state", envs)))
        spans_only_when_traced(os.environ)
        remember_missing_modules()
        imported = time.process_time() - T0
        async with Client(build_gateway(config), timeout=180) as client:
            await client.list_tools()
            start = time.process_time()
            await client.call_tool("scout", {"topic": TOPIC})
            first = time.process_time() - start
            if args.pid_wait:
                print(f"pid {os.getpid()}: warm scouts start in {args.pid_wait:g} s", flush=True)
                await anyio.sleep(args.pid_wait)
            warm: list[float] = []
            for _ in range(args.scouts):
                start = time.process_time()
                await client.call_tool("scout", {"topic": TOPIC})
                warm.append(time.process_time() - start)
    table(
        "CPU of one interpreter (gateway + in-process platforms + in-memory client)",
        ["imports s", "first scout s", f"warm scout ms (median of {args.scouts})"],
        [[f"{imported:.2f}", f"{first:.2f}", f"{statistics.median(warm) * 1000:.0f}"]],
    )


if __name__ == "__main__":
    anyio.run(main)
