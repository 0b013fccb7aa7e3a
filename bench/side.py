"""This tree against an earlier commit, side by side, for the rows whose own benchmark has no
`--before`: the strike record on 1,000,000 strikes (a decide-and-claim on a full SQLite
record, bench/record/claims.py), the console's pages at p95 (bench/console/pages.py) and
`gwanjong review list` against `gwanjong --help` (bench/start/cli.py). Start-up, the first
useful answer and peak memory: `bench.start.coldstart --before DIR`.

Each probe calls those benchmarks' own functions in a child Python that imports one tree's
modules: this tree's, or the archive's (`bench.common.before_env`: its packages, its bench
and its tests, so modules renamed since resolve as they were then). Every round runs each
probe once per tree, alternating which tree goes first, so the shared machine's load weighs
on both alike; the table shows medians over the rounds and the ratio now / before
(issue 35: no row worse than before by more than 5 %).

    uv run python -m bench.side --before DIR [--rounds 5] [--probes claims,console,cli]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from bench.common import PY, ROOT, before_env, table

#: worse than before by at most this much (issue 35)
TOLERANCE = 1.05

_ORIGIN = "import gwanjong_gateway\nORIGIN = gwanjong_gateway.__file__\n"

# Each probe prints one JSON object on its last line. They use only functions both trees'
# benchmarks have, so the archive's own harness measures the archive's own code.
PROBES = {
    # argv: work dir (one per tree), strikes in the full record, claims measured, round
    "claims": _ORIGIN
    + """
import json, shutil, sys, time
from pathlib import Path
from bench.record.claims import claims, fill_sqlite
work, rows, count, n = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
pristine = work / "pristine.db"
if not pristine.exists():  # filled once per tree; every round claims on a fresh copy
    fill_sqlite(pristine, rows, time.time())
shutil.copyfile(pristine, work / f"full-{n}.db")
empty, full = claims(str(work / f"empty-{n}.db"), str(work / f"full-{n}.db"), count)
for f in work.glob(f"*-{n}.db*"):
    f.unlink()
print(json.dumps({"origin": ORIGIN, "empty": empty, "full": full}))
""",
    # argv: server URL, database name prefix (one per tree), rows, claims measured, round
    "claims-pg": _ORIGIN
    + """
import json, sys, time
import psycopg
from psycopg import sql
from bench.record.claims import claims, fill_pg
from bench.record.store import drop_pg, fresh_pg
url, prefix, rows, count, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
at = url.rsplit("/", 1)[0] + "/"
with psycopg.connect(url, autocommit=True) as admin:
    known = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (prefix,)).fetchone()
    if not known:  # filled once per tree; every round claims on a copy
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(prefix)))
        fill_pg(at + prefix, rows, time.time())
    admin.execute(
        sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
            sql.Identifier(f"{prefix}_{n}"), sql.Identifier(prefix)
        )
    )
empty_url, empty_name = fresh_pg(url)
try:
    empty, full = claims(empty_url, at + f"{prefix}_{n}", count)
finally:
    drop_pg(url, empty_name)
    drop_pg(url, f"{prefix}_{n}")
print(json.dumps({"origin": ORIGIN, "empty": empty, "full": full}))
""",
    # argv: strike rows, usage calls, requests per page
    "console": _ORIGIN
    + """
import json, sys
import anyio
from bench.console.pages import pages
rows = anyio.run(pages, int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
print(json.dumps({"origin": ORIGIN, "p95_ms": {r[0]: float(r[2]) for r in rows}}))
""",
    # argv: runs of each command, approvals and hand-offs waiting
    "cli": _ORIGIN
    + """
import json, sys, tempfile
from pathlib import Path
from bench.start.cli import once
from tests.gateway.cli.seeded import seeded_config
runs, waiting = int(sys.argv[1]), int(sys.argv[2])
with tempfile.TemporaryDirectory(prefix="gwanjong-side-cli-") as tmp:
    config = str(seeded_config(Path(tmp), waiting))
    commands = {"--help": ["--help"], "review list": ["review", "list", "--config", config]}
    for argv in commands.values():  # warm the file cache and the bytecode
        once(argv)
    out = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            out[name].append(once(argv))
print(json.dumps({"origin": ORIGIN, **out}))
""",
}


def probe(name: str, tree: Path | None, argv: list[str]) -> dict[str, Any]:
    """Run one probe in a child Python on this tree (None) or on an archive."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if tree is not None:
        env |= before_env(tree)
    done = subprocess.run(
        [PY, "-c", PROBES[name], *argv],
        cwd=tree or ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
    )
    if done.returncode != 0:
        raise RuntimeError(f"probe {name} on {tree or 'this tree'} failed:\n{done.stderr[-3000:]}")
    got: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    expected = (tree or ROOT).resolve()
    assert Path(got["origin"]).resolve().is_relative_to(expected), (got["origin"], expected)
    return got


def med(values: list[float]) -> float:
    return statistics.median(values)


def verdict(before: float, now: float) -> list[str]:
    ratio = now / before
    return [f"{ratio:.2f}", "✔" if ratio <= TOLERANCE else f"✘ ({(ratio - 1) * 100:+.0f} %)"]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="an archive of a commit")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--probes", default="claims,console,cli", help="and claims-pg")
    parser.add_argument("--rows", type=int, default=1_000_000, help="strikes in the full record")
    parser.add_argument("--claims", type=int, default=300, help="claims measured per round")
    parser.add_argument("--requests", type=int, default=40, help="console requests per page")
    parser.add_argument("--runs", type=int, default=3, help="runs of each command per round")
    args = parser.parse_args()
    names = args.probes.split(",")
    pg = os.environ.get("GWANJONG_BENCH_PG_URL") or os.environ.get("GWANJONG_TEST_PG_URL") or ""
    if "claims-pg" in names and not pg:
        parser.error('claims-pg needs GWANJONG_BENCH_PG_URL (or eval "$(bash scripts/pg start)")')
    trees: dict[str, Path | None] = {"now": None, "before": args.before}
    got: dict[str, dict[str, list[dict[str, Any]]]] = {n: {t: [] for t in trees} for n in names}
    loads = [Path("/proc/loadavg").read_text().split()[0]]
    with tempfile.TemporaryDirectory(prefix="gwanjong-side-") as tmp:
        for tree in trees:
            (Path(tmp) / tree).mkdir()
        for n in range(args.rounds):
            order = list(trees) if n % 2 == 0 else list(trees)[::-1]
            for name in names:
                for tree in order:
                    argv = {
                        "claims": [str(Path(tmp) / tree), str(args.rows), str(args.claims), str(n)],
                        "claims-pg": [
                            pg,
                            f"{Path(tmp).name}_{tree}",
                            str(args.rows),
                            str(args.claims),
                            str(n),
                        ],
                        "console": ["10000", "20000", str(args.requests)],
                        "cli": [str(args.runs), "50"],
                    }[name]
                    got[name][tree].append(probe(name, trees[tree], argv))
            loads.append(Path("/proc/loadavg").read_text().split()[0])
    rows: list[list[Any]] = []
    for probe_name, engine in (("claims", "SQLite"), ("claims-pg", "PostgreSQL")):
        for key in ("full", "empty") if probe_name in got else ():
            b, w = (
                med([med(r[key]) * 1000 for r in got[probe_name][t]]) for t in ("before", "now")
            )
            figure = f"{engine} decide + claim, {key} record (ms, median)"
            rows.append([figure, f"{b:.3f}", f"{w:.3f}", *verdict(b, w)])
    if "console" in got:
        pages = list(got["console"]["now"][0]["p95_ms"])
        for page in pages:
            b, w = (med([r["p95_ms"][page] for r in got["console"][t]]) for t in ("before", "now"))
            rows.append([f"console p95 ms: {page}", f"{b:.1f}", f"{w:.1f}", *verdict(b, w)])
    if "cli" in got:
        for cmd in ("review list", "--help"):
            b, w = (
                med([s for r in got["cli"][t] for s in r[cmd]]) * 1000 for t in ("before", "now")
            )
            rows.append([f"gwanjong {cmd} (ms, median)", f"{b:.0f}", f"{w:.0f}", *verdict(b, w)])
    table(
        f"Now against {args.before}, medians of {args.rounds} alternating rounds "
        f"(load average during the run: {', '.join(loads)})",
        ["figure", "before", "now", "now / before", f"<= {TOLERANCE:g}"],
        rows,
    )


if __name__ == "__main__":
    main()
