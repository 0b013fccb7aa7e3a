"""Footprint: peak RSS of the gateway and every platform server it spawned, after a scout."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
from fastmcp import Client

from bench.common import gateway_transport, sandbox_and_config, table


def children(root: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            kids.setdefault(ppid, []).append(int(entry))
    out, stack = [], [root]
    while stack:
        for kid in kids.get(stack.pop(), []):
            out.append(kid)
            stack.append(kid)
    return out


def status(pid: int) -> tuple[str, int]:
    fields = dict(
        line.split(":", 1)
        for line in Path(f"/proc/{pid}/status").read_text().splitlines()
        if ":" in line
    )
    cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    name = next((part for part in cmd.split() if part.startswith("gwanjong")), cmd[:40])
    return name, int(fields["VmHWM"].split()[0])


async def main() -> None:
    with sandbox_and_config() as (_sandbox, _config, _envs):
        async with Client(gateway_transport(_config), timeout=120) as gw:
            await gw.call_tool("scout", {"topic": "rust async"})
            procs = [
                status(pid)
                for pid in children(os.getpid())
                if "gwanjong_" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="ignore")
            ]
    rows = [[name, f"{kb / 1024:.0f}"] for name, kb in sorted(procs)]
    rows.append(["total", f"{sum(kb for _, kb in procs) / 1024:.0f}"])
    table("Peak RSS (VmHWM) after one scout", ["process", "MiB"], rows)


if __name__ == "__main__":
    anyio.run(main)
