"""Cold start, same run, rounds in rotated order, every process closed between rounds:
spawn -> tools/list, spawn -> first useful answer (a scout on 4 platforms; for the FastMCP
mount, the 2 calls per platform a client makes instead: search + trending on each, in parallel), the CPU
seconds the process tree spent until then and its peak memory (sum of VmHWM; the sandbox is
not counted). Ratios are against the mount, measured in the same run.

    uv run python -m bench.start.coldstart [--rounds N] [--before DIR]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from fastmcp import Client

from bench.common import sandbox_and_config, table, timed
from bench.start.procstats import TreeStats, root_of, stats, tree
from bench.start.subjects import Subject, subjects
from tests.e2e.procs import alive


@dataclass
class Sample:
    listed_s: float
    first_s: float | None
    tree: TreeStats


async def cold(subject: Subject) -> Sample:
    start = timed()
    async with Client(subject.transport(), timeout=180) as client:
        await client.list_tools()
        listed = timed() - start
        first = None
        if subject.first is not None:
            await subject.first(client)
            first = timed() - start
        root = root_of(subject.needle)
        pids = tree(root)
        measured = stats(root)
    with anyio.fail_after(60):  # closed: wait until the whole tree is gone
        while any(alive(p) for p in pids):
            await anyio.sleep(0.05)
    return Sample(listed, first, measured)


def med(values: list[float]) -> float:
    return statistics.median(values)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--before", type=Path, default=None)
    args = parser.parse_args()
    with (
        sandbox_and_config() as (_sandbox, _config, envs),
        tempfile.TemporaryDirectory(prefix="gwanjong-cold-") as tmp,
    ):
        subs = subjects(Path(tmp), envs, args.before)
        samples: dict[str, list[Sample]] = {s.name: [] for s in subs}
        for k in range(args.rounds):
            for subject in subs[k % len(subs) :] + subs[: k % len(subs)]:  # rotated order
                samples[subject.name].append(await cold(subject))
    base = samples["FastMCP mount of the bundled servers"]
    b_list, b_first = med([s.listed_s for s in base]), med([s.first_s or 0 for s in base])
    b_cpu, b_mem = med([s.tree.cpu_s for s in base]), med([s.tree.peak_mib for s in base])
    rows: list[list[Any]] = []
    for name, got in samples.items():
        listed = med([s.listed_s for s in got])
        firsts = [s.first_s for s in got if s.first_s is not None]
        first = med(firsts) if firsts else None
        cpu, mem = med([s.tree.cpu_s for s in got]), med([s.tree.peak_mib for s in got])
        procs = max(s.tree.processes for s in got)
        rows.append(
            [
                name,
                f"{listed:.2f} ({listed / b_list:.2f})",
                f"{first:.2f} ({first / b_first:.2f})" if first is not None else "-",
                f"{cpu:.1f} ({cpu / b_cpu:.2f})",
                f"{mem:.0f} ({mem / b_mem:.2f})",
                procs,
            ]
        )
    table(
        f"Cold start, median of {args.rounds} rounds (ratio to the FastMCP mount, same run)",
        [
            "server",
            "spawn -> tools/list s",
            "spawn -> first useful answer s",
            "CPU-s until then",
            "peak MiB (sum VmHWM)",
            "processes",
        ],
        rows,
    )
    now = samples["gwanjong"]
    first_ratio = med([s.first_s or 0 for s in now]) / b_first
    mem = med([s.tree.peak_mib for s in now])
    print(
        f"\ntarget: first useful answer <= 0.6x the mount's first calls -> {first_ratio:.2f} "
        f"{'met' if first_ratio <= 0.6 else 'NOT met'}"
    )
    print(
        f"target: peak memory, gateway + the bundled <= 200 MiB -> {mem:.0f} "
        f"{'met' if mem <= 200 else 'NOT met'}"
    )


if __name__ == "__main__":
    anyio.run(main)
