"""Footprint: peak RSS of the gateway and every platform server it spawned, after a scout."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
from fastmcp import Client

from bench.common import gateway_transport, sandbox_and_config, table
from tests.e2e.procs import cmdline, find


def peak_rss(pid: int) -> tuple[str, int]:
    fields = dict(
        line.split(":", 1)
        for line in Path(f"/proc/{pid}/status").read_text().splitlines()
        if ":" in line
    )
    cmd = cmdline(pid)
    name = next((part for part in cmd.split() if part.startswith("gwanjong")), cmd[:40])
    return name, int(fields["VmHWM"].split()[0])


async def main() -> None:
    with sandbox_and_config() as (_sandbox, config, _envs):
        async with Client(gateway_transport(config), timeout=120) as gw:
            await gw.call_tool("scout", {"topic": "rust async"})
            procs = [peak_rss(pid) for pid in find(os.getpid(), "gwanjong_")]
    rows = [[name, f"{kb / 1024:.0f}"] for name, kb in sorted(procs)]
    rows.append(["total", f"{sum(kb for _, kb in procs) / 1024:.0f}"])
    table("Peak RSS (VmHWM) after one scout", ["process", "MiB"], rows)


if __name__ == "__main__":
    anyio.run(main)
