"""Footprint: peak RSS (VmHWM) of the gateway and every platform server it runs, after one
scout on every bundled platform, default (in-process) and isolation=process. The sandbox is
not counted. With `--before DIR` (an archive of an earlier commit, see `bench.common.before_env`)
that commit's gateway, default isolation, is measured too, and the rounds alternate.

    uv run python -m bench.start.footprint [--before DIR] [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

import anyio
from fastmcp import Client

from bench.common import before_env, gateway_transport, sandbox_and_config, table, write_config
from bench.start.procstats import per_process, root_of
from bench.start.subjects import scout


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    # (label, isolation, environment of the gateway and its platforms)
    subjects = [("in-process", "in-process", {}), ("process", "process", {})]
    if args.before is not None:
        subjects.append(("before", "in-process", before_env(args.before)))
    got: dict[tuple[str, str], list[float]] = {}
    with (
        sandbox_and_config() as (_sandbox, _config, envs),
        tempfile.TemporaryDirectory(prefix="gwanjong-foot-") as tmp,
    ):
        for n in range(args.rounds):
            for label, isolation, env in subjects if n % 2 == 0 else subjects[::-1]:
                name = f"{label}-{n}"
                config = write_config(
                    Path(tmp) / f"{name}.toml", Path(tmp) / name, envs, isolation, extra_env=env
                )
                transport = gateway_transport(config, keep_alive=False, env=env)
                async with Client(transport, timeout=180) as gw:
                    await scout(gw)
                    procs = per_process(root_of(f"{name}.toml"))
                for process, mib in [*procs, ("total", sum(m for _, m in procs))]:
                    got.setdefault((label, process), []).append(mib)
    rows = [[label, proc, f"{statistics.median(mib):.0f}"] for (label, proc), mib in got.items()]
    table(
        f"Peak RSS (VmHWM) after one scout, median of {args.rounds}",
        ["gateway", "process", "MiB"],
        rows,
    )


if __name__ == "__main__":
    anyio.run(main)
