"""Warm scout: CPU the whole process tree spends per scout on 4 platforms once everything is
up (gateway plus its platform servers, in or out of its process), median of 3 batches of
20 scouts, same run. With `--before DIR` the earlier gateway is the baseline.

    uv run python -m bench.start.warm [--before DIR]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path
from typing import Any

import anyio
from fastmcp import Client

from bench.common import sandbox_and_config, table, timed
from bench.start.procstats import root_of, stats
from bench.start.subjects import TOPIC, Subject, scout, subjects

N = 20
BATCHES = 3


async def warm(subject: Subject) -> tuple[float, float]:
    """(CPU ms per scout, wall ms per scout)."""
    async with Client(subject.transport(), timeout=180) as client:
        await scout(client)
        root = root_of(subject.needle)
        cpu: list[float] = []
        wall: list[float] = []
        for _ in range(BATCHES):
            before, start = stats(root).cpu_s, timed()
            for _ in range(N):
                await client.call_tool("scout", {"topic": TOPIC})
            wall.append((timed() - start) / N * 1000)
            cpu.append((stats(root).cpu_s - before) / N * 1000)
    return statistics.median(cpu), statistics.median(wall)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, default=None)
    args = parser.parse_args()
    with (
        sandbox_and_config() as (_sandbox, _config, envs),
        tempfile.TemporaryDirectory(prefix="gwanjong-warm-") as tmp,
    ):
        subs = [
            s for s in subjects(Path(tmp), envs, args.before, with_bare=False) if s.first is scout
        ]
        got = {s.name: await warm(s) for s in subs}
    base_name = "before" if args.before else "gwanjong, isolation=process"
    base_cpu = got[base_name][0]
    rows: list[list[Any]] = [
        [name, f"{cpu:.0f}", f"{cpu / base_cpu:.2f}", f"{wall:.0f}"]
        for name, (cpu, wall) in got.items()
    ]
    table(
        f"Warm scout on 4 platforms: CPU of the process tree per scout (median of {BATCHES} x {N})",
        ["server", "CPU ms / scout", f"ratio to {base_name}", "wall ms / scout"],
        rows,
    )
    ratio = got["gwanjong"][0] / base_cpu
    print(
        f"\ntarget: warm scout CPU <= 0.7x {base_name} -> {ratio:.2f} "
        f"{'met' if ratio <= 0.7 else 'NOT met'}"
    )


if __name__ == "__main__":
    anyio.run(main)
