"""`gwanjong review list` against `gwanjong --help`: a person's command that reads the
record answers within 2x the time of printing the help (issue 35). Each command runs as
its own process, alternating, so both see the same machine load; the figure to keep is
the ratio of the medians in one run (wall times on a shared machine vary more)."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import median_ms, table
from tests.gateway.cli.seeded import seeded_config

#: the most `review list` may take, in `--help`s
BUDGET = 2.0


def once(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "gwanjong_gateway", *argv], check=True, capture_output=True
    )
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=10, help="runs of each command")
    ap.add_argument("--waiting", type=int, default=50, help="approvals and hand-offs waiting")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gwanjong-cli-") as tmp:
        config = str(seeded_config(Path(tmp), args.waiting))
        commands = {
            "--help": ["--help"],
            "review list": ["review", "list", "--config", config],
            "history": ["history", "--config", config],
        }
        for argv in commands.values():  # warm the file cache and .pyc files
            once(argv)
        samples: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, argv in commands.items():
                samples[name].append(once(argv))
    helps = median_ms(samples["--help"])
    rows = [
        [name, f"{median_ms(s):.0f}", f"{median_ms(s) / helps:.2f}x"] for name, s in samples.items()
    ]
    table(
        f"Person-facing commands, median of {args.runs} runs ({args.waiting} approvals and "
        f"{args.waiting} hand-offs waiting; budget: review list <= {BUDGET:g}x --help)",
        ["command", "ms", "vs --help"],
        rows,
    )


if __name__ == "__main__":
    main()
