"""CPU time and peak memory of a process tree, read from /proc (Linux)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tests.e2e.procs import cmdline, descendants, find

TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class TreeStats:
    cpu_s: float
    peak_mib: float  # sum of each process's VmHWM
    processes: int


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def root_of(needle: str) -> int:
    """The one process under this benchmark whose command line holds `needle`."""
    pids = [p for p in find(os.getpid(), needle) if "gwanjong_sandbox" not in cmdline(p)]
    roots = [p for p in pids if not any(p in descendants(q) for q in pids if q != p)]
    assert len(roots) == 1, (needle, roots)
    return roots[0]


def tree(root: int) -> list[int]:
    return [root, *descendants(root)]


def stats(root: int) -> TreeStats:
    cpu, kib, n = 0.0, 0, 0
    for pid in tree(root):
        try:
            cpu += _cpu_s(pid)
            kib += peak_kib(pid)
            n += 1
        except OSError:  # exited meanwhile
            continue
    return TreeStats(cpu, kib / 1024, n)


def per_process(root: int) -> list[tuple[str, float]]:
    rows = []
    for pid in tree(root):
        cmd = cmdline(pid)
        name = next((p for p in cmd.split() if p.startswith(("gwanjong", "bench."))), cmd[:40])
        rows.append((name, peak_kib(pid) / 1024))
    return rows
