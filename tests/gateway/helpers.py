"""Building a gateway for tests: in-process platform servers, one client (the config
builder, `config_text` and `config_file`, lives in tests/config.py for every tier)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client, FastMCP

from gwanjong_gateway.cli.main import main
from gwanjong_gateway.config import GatewayConfig, parse
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.server import build_gateway
from gwanjong_sandbox.control import SandboxControl
from tests.config import config_file, config_text
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.mcp import call
from tests.platforms import SPECS

__all__ = ["config_file", "config_text", "in_memory_gateway", "in_threads", "opportunity_for"]


async def never(_seconds: float) -> None:
    """A sleep that no real time ends: a test gateway's own deadlines wait with it."""
    await anyio.sleep_forever()


def patient_gateway(
    config: GatewayConfig,
    environ: dict[str, str] | None = None,
    transports: dict[str, Any] | None = None,
    **clocks: Any,
) -> Gateway:
    """A `Gateway` for a test in this process whose own deadlines (status's probe, record
    and usage log; scout's `answer_within_s`) never pass by real time: however slow the
    machine, it waits for what it waits on. A test that needs a deadline to pass sets
    ``gw.sleep`` to a ``FakeClock(gated=True)``'s and steps it. ``clocks``: ``clock=``,
    ``wall=``."""
    gw = Gateway(config, {} if environ is None else environ, transports, **clocks)
    gw.sleep = never
    return gw


def gateway_of(
    state_dir: Path,
    *fakes: FakePlatform,
    clock: FakeClock | None = None,
    wall: Callable[[], float] | None = None,
    **config: Any,
) -> tuple[Gateway, FastMCP[Any]]:
    """The gateway over ``fakes`` (``config``: `config_text`'s) and its MCP server, for a
    test that reaches into it; ``clock`` and ``wall`` are its clocks, if given (``clock``:
    the platform servers' too)."""
    times = {k: v for k, v in (("clock", clock), ("wall", wall)) if v is not None}
    transports = {f.profile.name: f.server(clock=clock) for f in fakes}
    config_of = parse(config_text(state_dir, [f.profile.name for f in fakes], **config))
    gw = patient_gateway(config_of, {}, transports, **times)
    return gw, build_gateway(gw.config, gateway=gw)


def in_memory_gateway(
    sandbox: SandboxControl,
    state_dir: Path,
    platforms: list[str],
    writes: str = "live",
    settings: Mapping[str, Any] | None = None,
    tables: Mapping[str, Mapping[str, Any]] | None = None,
    platform: Mapping[str, Any] | None = None,
    servers: Mapping[str, Any] | None = None,
) -> FastMCP[Any]:
    """The gateway with each platform server in-process, talking HTTP to the sandbox;
    ``servers``: a platform's own server in place of its default one (other settings)."""
    config = parse(config_text(state_dir, platforms, writes, settings, tables, platform))
    mine = servers or {}
    transports = {name: mine.get(name) or SPECS[name].build(sandbox.url) for name in platforms}
    return build_gateway(config, gateway=patient_gateway(config, {}, transports))


async def drafted(
    client: Client[Any],
    topic: str = "rust async cancellation",
    title: str = "Rust async",
    platform: str = "devto",
    **scout: Any,
) -> str:
    """Scout ``topic``, then draft the ``platform`` opportunity with ``title`` in its title:
    its id."""
    oid = opportunity_for(
        await call(client, "scout", topic=topic, **{"limit": 5, **scout}), platform, title
    )
    await call(client, "draft", opportunity_id=oid)
    return oid


async def resource(client: Client[Any], uri: str) -> Any:
    """The JSON a resource reads as."""
    contents = await client.read_resource(uri)
    return json.loads(contents[0].text)  # type: ignore[union-attr]


def opportunity_for(scouted: dict[str, Any], platform: str, title_part: str) -> str:
    for o in scouted["opportunities"]:
        if o["platform"] == platform and title_part.lower() in o["title"].lower():
            return str(o["id"])
    raise AssertionError(f"no {platform} opportunity with {title_part!r} in {scouted}")


def exit_code(argv: list[str]) -> int:
    """`gwanjong ARGV`, run in-process: its exit code."""
    with pytest.raises(SystemExit) as done:
        main(argv)
    return int(done.value.code or 0)


def in_threads(work: Callable[..., object], *each: tuple[Any, ...]) -> None:
    """``work(*args)`` for each ``args`` of ``each``, every one in a thread of its own, all
    started before any is joined (the bound only catches a hang)."""
    threads = [threading.Thread(target=work, args=args) for args in each]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
