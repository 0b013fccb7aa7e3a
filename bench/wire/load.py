"""Many signed-in users at once on one gateway process over HTTP: operations a second and
per CPU-second of the gateway, and a strike's p50/p95/p99.

USERS users (each with its own token, `[auth] mode = "tokens"`) each loop for SECONDS:
a dry-run scout of one platform, a draft of its first opportunity, a dry-run strike of a
comment on it (the reliability load of issue 27, bounded). A real `gwanjong --transport
http` process on 127.0.0.1, its platforms the real servers against the sandbox. With
`--before DIR` (a `git archive` of an earlier commit, its extra dependencies in
`DIR/.deps`, as `bench/start/warm.py`) that gateway runs the same load next, and each row
gets its ratio. `--rounds N` runs each gateway N times, alternating which goes first, and
shows the medians: on a shared machine the CPU a gateway gets in its turn varies, the CPU
an operation costs much less.

    uv run python -m bench.wire.load [--users 50] [--seconds 120] [--before DIR] [--rounds 3]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import signal
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx

from bench.common import PLATFORMS, PY, QUIET, before_env, table
from bench.start.procstats import stats
from gwanjong_gateway.config.file import render
from gwanjong_gateway.team.access_tokens import store_for
from gwanjong_sandbox.control import start_sandbox
from tests.e2e.procs import find

TOPIC = "rust async"
VERSION = "2025-11-25"
CLIENT = {"name": "bench-load", "version": "0"}
ANNOUNCED = re.compile(r"serving MCP on http://\S+:(\d+)/mcp")


@dataclass
class Load:
    ops: int = 0
    empty: int = 0  # scouts that found nothing
    errors: list[str] = field(default_factory=lambda: [])
    strikes: list[float] = field(default_factory=lambda: [])  # seconds each


@dataclass(frozen=True)
class Figures:
    ops_per_s: float
    ops_per_cpu_s: float  # the gateway's: the figure a busy machine changes least
    cpu_ms_per_op: float
    cpu_share: float  # of the wall time, one core = 1
    client_share: float  # the users' (this process's) CPU, the same way
    sandbox_share: float  # the platforms' emulator's
    strike_p50_ms: float
    strike_p95_ms: float
    strike_p99_ms: float
    ops: int
    errors: int
    first_error: str


def sandbox_pid() -> int:
    (pid,) = find(os.getpid(), "gwanjong_sandbox")
    return pid


def configure(folder: Path, envs: dict[str, dict[str, str]], users: int) -> tuple[Path, list[str]]:
    state = folder / "state"
    gateway = {"writes": "dry-run", "state_dir": state, "call_timeout_s": 60}
    platforms = {name: {"env": env, "min_interval_s": 0} for name, env in envs.items()}
    path = folder / "gateway.toml"
    text = render(gateway, platforms) + '\n[auth]\nmode = "tokens"\n'
    path.write_text(text, encoding="utf-8")
    store = store_for(state)
    return path, [store.add(f"user{n}") for n in range(users)]


def start(
    config: Path, env: dict[str, str], profile: Path | None = None
) -> tuple[subprocess.Popen[bytes], str, Path]:
    log = config.parent / "gateway.stderr"
    profiled = ("-m", "bench.wire.profiled", str(profile)) if profile is not None else ()
    with log.open("wb") as err:
        process = subprocess.Popen(
            [
                *(PY, *(profiled or ("-m",)), "gwanjong_gateway", "--config", str(config)),
                *("--transport", "http", "--host", "127.0.0.1", "--port", "0"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=err,
            env={**os.environ, **QUIET, **env},
        )
    deadline = time.monotonic() + 120  # generous: the CPU is shared
    while not (found := ANNOUNCED.search(log.read_text(errors="replace"))):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise SystemExit(f"the gateway did not start:\n{log.read_text(errors='replace')}")
        time.sleep(0.05)
    return process, f"http://127.0.0.1:{found.group(1)}/mcp", log


class Raw:
    """A light MCP client (JSON-RPC over httpx, handshake era): the load is the gateway's,
    not a full client's parsing and validation in this process."""

    def __init__(self, http: httpx.AsyncClient, url: str, token: str) -> None:
        self.http, self.url, self.ids = http, url, itertools.count(1)
        self.headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }

    async def start(self) -> Raw:
        init = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": CLIENT}
        answer = await self.http.post(
            self.url, json=self._rpc("initialize", init), headers=self.headers
        )
        answer.raise_for_status()
        self.headers["mcp-session-id"] = answer.headers["mcp-session-id"]
        self.headers["mcp-protocol-version"] = VERSION
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        (await self.http.post(self.url, json=note, headers=self.headers)).raise_for_status()
        return self

    def _rpc(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": next(self.ids), "method": method, "params": params}

    async def call(self, tool: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
        """(is_error, structuredContent) of one tools/call."""
        body = self._rpc("tools/call", {"name": tool, "arguments": arguments})
        answer = await self.http.post(self.url, json=body, headers=self.headers)
        text = answer.text
        if answer.headers.get("content-type", "").startswith("text/event-stream"):
            text = next(
                line[5:]
                for line in text.splitlines()
                if line.startswith("data:") and '"id"' in line
            )
        reply = json.loads(text)
        if "error" in reply:
            return True, {"error": reply["error"]}
        result = reply["result"]
        return bool(result.get("isError")), result.get("structuredContent") or {}

    async def close(self) -> None:
        await self.http.delete(self.url, headers=self.headers)


async def one_round(client: Raw, platform: str, load: Load) -> None:
    args = {"topic": TOPIC, "platforms": [platform], "limit": 3}
    failed, found = await client.call("scout", args)
    load.ops += 1
    chances = found.get("opportunities") or []
    if failed:
        load.errors.append(f"scout {platform}: {found}")
    if not chances:  # an answer all the same (e.g. twitter's search only gives new posts)
        load.empty += 1
        return
    opportunity = chances[0]["id"]
    failed, drafted = await client.call("draft", {"opportunity_id": opportunity})
    load.ops += 1
    if failed:
        load.errors.append(f"draft: {drafted}")
        return
    began = time.perf_counter()
    failed, struck = await client.call(
        "strike",
        {"opportunity_id": opportunity, "action": "comment", "content": "Guard each await."},
    )
    load.strikes.append(time.perf_counter() - began)
    load.ops += 1
    if failed:
        load.errors.append(f"strike: {struck}")


async def user(
    http: httpx.AsyncClient, url: str, token: str, platform: str, until: float, load: Load
) -> None:
    client = await Raw(http, url, token).start()
    while time.monotonic() < until:
        await one_round(client, platform, load)
    await client.close()


async def run(url: str, tokens: list[str], seconds: float, pid: int, profiled: bool) -> Figures:
    found: list[str] = []  # the platforms whose sandbox finds the topic
    limits = httpx.Limits(max_connections=len(tokens) + 1)
    async with httpx.AsyncClient(timeout=180, limits=limits) as http:
        warm = await Raw(http, url, tokens[0]).start()
        for platform in PLATFORMS:  # every platform up and each code path warm
            tried = Load()
            await one_round(warm, platform, tried)
            if not tried.errors and not tried.empty:
                found.append(platform)
        await warm.close()
        assert found, "no platform found the topic"
        load = Load()
        sandbox = sandbox_pid()
        if profiled:  # the profile keeps only what follows (bench/wire/profiled.py)
            os.kill(pid, signal.SIGUSR1)
        cpu_before, began, mine = stats(pid).cpu_s, time.monotonic(), time.process_time()
        sandbox_before = stats(sandbox).cpu_s
        async with anyio.create_task_group() as group:
            for n, token in enumerate(tokens):
                platform = found[n % len(found)]
                group.start_soon(user, http, url, token, platform, began + seconds, load)
        wall = time.monotonic() - began
        cpu = stats(pid).cpu_s - cpu_before
        clients = (time.process_time() - mine) / wall
        emulator = (stats(sandbox).cpu_s - sandbox_before) / wall
    ms = sorted(s * 1000 for s in load.strikes) or [0.0]

    def pick(q: float) -> float:
        return ms[min(len(ms) - 1, round(q * (len(ms) - 1)))]

    return Figures(
        ops_per_s=load.ops / wall,
        ops_per_cpu_s=load.ops / max(cpu, 1e-9),
        cpu_ms_per_op=cpu / max(load.ops, 1) * 1000,
        cpu_share=cpu / wall,
        strike_p50_ms=statistics.median(ms),
        strike_p95_ms=pick(0.95),
        strike_p99_ms=pick(0.99),
        ops=load.ops,
        client_share=clients,
        sandbox_share=emulator,
        errors=len(load.errors),
        first_error=load.errors[0][:300] if load.errors else "",
    )


def measure(
    name: str,
    folder: Path,
    envs: dict[str, dict[str, str]],
    users: int,
    seconds: float,
    env: dict[str, str],
    profile: Path | None = None,
) -> Figures:
    folder.mkdir()
    config, tokens = configure(folder, envs, users)
    process, url, log = start(config, env, profile)
    try:
        figures = anyio.run(run, url, tokens, seconds, process.pid, profile is not None)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
    if figures.errors:
        print(f"{name}: {figures.errors} errors, the first: {figures.first_error}")
        print("the gateway's log ends:")
        print(log.read_text(errors="replace")[-2000:])
    return figures


def median_of(runs: list[Figures]) -> Figures:
    """Each figure's median over the runs (the errors summed, the first one kept)."""
    numbers = {
        name: statistics.median(getattr(f, name) for f in runs)
        for name in Figures.__dataclass_fields__
        if name not in ("ops", "errors", "first_error")
    }
    first = next((f.first_error for f in runs if f.first_error), "")
    ops = round(statistics.median(f.ops for f in runs))
    return Figures(**numbers, ops=ops, errors=sum(f.errors for f in runs), first_error=first)


COLUMNS = [
    "gateway",
    "ops/s",
    "ops per gateway CPU-s",
    "gateway CPU ms/op",
    "gateway CPU (cores)",
    "users' CPU (cores)",
    "sandbox CPU (cores)",
    "strike p50 ms",
    "strike p95 ms",
    "strike p99 ms",
    "ops",
    "errors",
]


def row(name: str, f: Figures) -> list[Any]:
    return [
        name,
        f"{f.ops_per_s:.1f}",
        f"{f.ops_per_cpu_s:.1f}",
        f"{f.cpu_ms_per_op:.1f}",
        f"{f.cpu_share:.2f}",
        f"{f.client_share:.2f}",
        f"{f.sandbox_share:.2f}",
        f"{f.strike_p50_ms:.0f}",
        f"{f.strike_p95_ms:.0f}",
        f"{f.strike_p99_ms:.0f}",
        f.ops,
        f.errors,
    ]


def ratios(now: Figures, old: Figures) -> list[Any]:
    def ratio(attribute: str) -> str:
        before = getattr(old, attribute)
        return f"{getattr(now, attribute) / before:.2f}" if before else ""

    figures = ["ops_per_s", "ops_per_cpu_s", "cpu_ms_per_op", "cpu_share"]
    latencies = ["strike_p50_ms", "strike_p95_ms", "strike_p99_ms"]
    return ["now / before", *map(ratio, figures), "", "", *map(ratio, latencies), "", ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--before", type=Path, help="an archive of an earlier commit")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each gateway (medians)")
    parser.add_argument("--profile", type=Path, help="cProfile the gateway into this file")
    args = parser.parse_args()
    subjects: list[tuple[str, dict[str, str]]] = [("gwanjong", {})]
    if args.before is not None:
        subjects.append(("before", before_env(args.before)))
    runs: dict[str, list[Figures]] = {name: [] for name, _ in subjects}
    with start_sandbox() as sandbox, tempfile.TemporaryDirectory(prefix="gwanjong-load-") as tmp:
        served = [p for p in PLATFORMS if p in sandbox.health()["servable"]]
        envs = {p: sandbox.env(p) for p in served}
        for n in range(args.rounds):
            # alternate which goes first: neither always gets the quieter half of a round
            for name, env in subjects if n % 2 == 0 else subjects[::-1]:
                profile = args.profile if name == "gwanjong" and n == 0 else None
                folder = Path(tmp) / f"{name}-{n}"
                figures = measure(name, folder, envs, args.users, args.seconds, env, profile)
                runs[name].append(figures)
                print(
                    f"round {n + 1} {name}: {figures.ops_per_cpu_s:.1f} ops per CPU-s", flush=True
                )
    results = {name: median_of(figures) for name, figures in runs.items()}
    rows = [row(name, f) for name, f in results.items()]
    if "before" in results:
        rows.append(ratios(results["gwanjong"], results["before"]))
    print(
        f"load {os.getloadavg()[0]:.1f}; {args.users} users for {args.seconds:.0f} s each; "
        f"median of {args.rounds} round(s)"
    )
    table(
        "Signed-in users over HTTP on one gateway process (dry-run scout -> draft -> strike)",
        COLUMNS,
        rows,
    )


if __name__ == "__main__":
    main()
