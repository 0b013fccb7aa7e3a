"""Footprint: peak RSS (VmHWM) of the gateway and every platform server it runs, after one
scout on every bundled platform, default (in-process) and isolation=process. The sandbox is not counted."""

from __future__ import annotations

import tempfile
from pathlib import Path

import anyio
from fastmcp import Client

from bench.common import gateway_transport, sandbox_and_config, table, write_config
from bench.start.procstats import per_process, root_of
from bench.start.subjects import scout


async def main() -> None:
    rows: list[list[str]] = []
    with (
        sandbox_and_config() as (_sandbox, _config, envs),
        tempfile.TemporaryDirectory(prefix="gwanjong-foot-") as tmp,
    ):
        for isolation in ("in-process", "process"):
            config = write_config(
                Path(tmp) / f"{isolation}.toml", Path(tmp) / isolation, envs, isolation=isolation
            )
            async with Client(gateway_transport(config, keep_alive=False), timeout=180) as gw:
                await scout(gw)
                procs = per_process(root_of(f"{isolation}.toml"))
            for name, mib in procs:
                rows.append([isolation, name, f"{mib:.0f}"])
            rows.append([isolation, "total", f"{sum(m for _, m in procs):.0f}"])
    table("Peak RSS (VmHWM) after one scout", ["isolation", "process", "MiB"], rows)


if __name__ == "__main__":
    anyio.run(main)
