"""Shared pieces of the benchmarks: the sandbox, configs, clients, tables."""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastmcp.client.transports import StdioTransport

from gwanjong_gateway.config.file import render
from gwanjong_sandbox.control import SandboxControl, start_sandbox

PLATFORMS = ["devto", "bluesky", "twitter", "reddit", "mastodon", "hackernews"]
ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
QUIET = {
    "FASTMCP_LOG_LEVEL": "WARNING",
    "FASTMCP_CHECK_FOR_UPDATES": "off",
    "FASTMCP_SHOW_SERVER_BANNER": "false",
}


@contextmanager
def sandbox_and_config(
    writes: str = "live", timeout: float = 20
) -> Iterator[tuple[SandboxControl, Path, dict[str, dict[str, str]]]]:
    with start_sandbox() as sandbox, tempfile.TemporaryDirectory(prefix="gwanjong-bench-") as tmp:
        served = [p for p in PLATFORMS if p in sandbox.health()["servable"]]
        envs = {p: sandbox.env(p) for p in served}
        gateway = {
            "writes": writes,
            "state_dir": Path(tmp) / "state",
            "call_timeout_s": timeout,
            "expose": ["devto__capabilities"],  # for bench/wire/hop.py
        }
        platforms = {name: {"env": env, "min_interval_s": 0} for name, env in envs.items()}
        path = Path(tmp) / "gateway.toml"
        path.write_text(render(gateway, platforms), encoding="utf-8")
        yield sandbox, path, envs


def gateway_transport(
    config: Path, keep_alive: bool = True, env: dict[str, str] | None = None
) -> StdioTransport:
    return StdioTransport(
        command=PY,
        args=["-m", "gwanjong_gateway", "--config", str(config)],
        env={**QUIET, **(env or {})},
        keep_alive=keep_alive,
    )


def write_config(
    path: Path,
    state_dir: Path,
    envs: dict[str, dict[str, str]],
    isolation: str | None = None,
    extra_env: dict[str, str] | None = None,
) -> Path:
    """A gateway.toml without `expose` (so nothing starts before its first use)."""
    platforms: dict[str, dict[str, Any]] = {}
    for name, env in envs.items():
        table_: dict[str, Any] = {"env": {**env, **(extra_env or {})}, "min_interval_s": 0}
        if isolation is not None:
            table_["isolation"] = isolation
        platforms[name] = table_
    # answer_within_s = the call timeout: a scout measured as an answer waits for every platform,
    # never answers "still coming" because the machine is loaded
    gateway = {
        "writes": "dry-run",
        "state_dir": state_dir,
        "call_timeout_s": 60,
        "answer_within_s": 60,
    }
    path.write_text(render(gateway, platforms), encoding="utf-8")
    return path


def server_transport(platform: str, env: dict[str, str]) -> StdioTransport:
    return StdioTransport(command=PY, args=["-m", f"gwanjong_{platform}"], env={**env, **QUIET})


def before_env(before: Path) -> dict[str, str]:
    """The environment that makes a child Python import an earlier commit's own modules: `before`
    is a `git archive` of it (its extra dependencies in `before/.deps`). Its root comes first, so
    its `bench` and `tests` are used too. Bytecode goes to a cache of its own, outside the
    archive: compiling every module on every start would weigh on the earlier commit alone."""
    roots = [".", "gateway", "shared", "sandbox", *(f"servers/{n}" for n in PLATFORMS), ".deps"]
    return {
        "PYTHONPATH": ":".join(str(before.resolve() / p) for p in roots),
        "PYTHONPYCACHEPREFIX": str(Path(tempfile.gettempdir()) / "gwanjong-bench-before-pyc"),
    }


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def timed() -> Any:
    return time.perf_counter()


def table(title: str, header: list[str], rows: list[list[Any]]) -> None:
    """A plain-text table (copy-paste friendly for the README)."""
    cells = [header, *[[str(c) for c in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    print(f"\n{title}")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells[1:]:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
