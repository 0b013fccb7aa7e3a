"""The servers the cold-start, warm and footprint benchmarks compare, each spawned over stdio.

- gwanjong: the gateway as shipped (bundled platforms in its interpreter, started on first use);
- gwanjong, isolation=process: the same with every platform in its own process;
- before: the gateway at an earlier commit (`--before DIR`, a `git archive` of it, with
  `DIR/.deps` holding its extra dependencies), as the issue measured it: five processes;
- mount: FastMCP `mount` of proxies of the bundled servers, what a user would build instead;
- bare: a one-tool FastMCP server, the floor of any Python MCP server.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from bench.common import PLATFORMS, PY, QUIET, before_env, write_config

BARE = "from fastmcp import FastMCP\nm = FastMCP('bare')\n@m.tool\ndef ping() -> str:\n    'Ping.'\n    return 'pong'\nm.run(show_banner=False)\n"
TOPIC = "rust async"


@dataclass(frozen=True)
class Subject:
    name: str
    transport: Callable[[], StdioTransport]
    needle: str  # in the root process's command line
    #: the first useful answer: a scout, or what a user of the raw tools calls instead
    first: Callable[[Client[Any]], Awaitable[None]] | None


async def scout(client: Client[Any]) -> None:
    result = await client.call_tool("scout", {"topic": TOPIC})
    data = result.structured_content or {}
    assert not data.get("errors"), data.get("errors")
    assert data.get("opportunities"), data


def eight_calls(namespaced: Callable[[str, str], str]) -> Callable[[Client[Any]], Awaitable[None]]:
    async def run(client: Client[Any]) -> None:
        async with anyio.create_task_group() as tg:
            for platform in PLATFORMS:
                tg.start_soon(client.call_tool, namespaced(platform, "search"), {"query": TOPIC})
                tg.start_soon(client.call_tool, namespaced(platform, "trending"), {})

    return run


def _gateway(config: Path, env: dict[str, str] | None = None) -> Callable[[], StdioTransport]:
    return lambda: StdioTransport(
        command=PY,
        args=["-m", "gwanjong_gateway", "--config", str(config)],
        env={**QUIET, **(env or {})},
        keep_alive=False,  # a new process every round: nothing survives into the next
    )


def subjects(
    tmp: Path, envs: dict[str, dict[str, str]], before: Path | None, with_bare: bool = True
) -> list[Subject]:
    out: list[Subject] = []
    if with_bare:
        out.append(
            Subject(
                "bare one-tool FastMCP server",
                lambda: StdioTransport(command=PY, args=["-c", BARE], env=QUIET, keep_alive=False),
                "FastMCP('bare')",
                None,
            )
        )
    now = write_config(tmp / "now.toml", tmp / "state-now", envs)
    out.append(Subject("gwanjong", _gateway(now), "now.toml", scout))
    proc = write_config(tmp / "process.toml", tmp / "state-proc", envs, isolation="process")
    out.append(Subject("gwanjong, isolation=process", _gateway(proc), "process.toml", scout))
    if before is not None:
        env = before_env(before)
        old = write_config(tmp / "before.toml", tmp / "state-before", envs, extra_env=env)
        out.append(Subject("before", _gateway(old, env), "before.toml", scout))
    (tmp / "envs.json").write_text(json.dumps(envs))
    out.append(
        Subject(
            "FastMCP mount of the bundled servers",
            lambda: StdioTransport(
                command=PY,
                args=["-m", "bench.baselines", "mount", str(tmp / "envs.json")],
                env=QUIET,
                keep_alive=False,
            ),
            "bench.baselines",
            eight_calls(lambda p, t: f"{p}_{t}"),
        )
    )
    return out
