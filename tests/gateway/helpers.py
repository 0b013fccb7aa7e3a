"""Building a gateway for tests: config text, in-process platform servers, one client."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from fastmcp import Client, FastMCP

from gwanjong_gateway.config import parse
from gwanjong_gateway.config_file import render
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.server import build_gateway
from gwanjong_sandbox.control import SandboxControl
from tests.fakes.platform import FakePlatform
from tests.mcp import call
from tests.platforms import SPECS


def config_text(
    state_dir: Path,
    platforms: list[str],
    writes: str = "live",
    settings: Mapping[str, Any] | None = None,
    tables: Mapping[str, Mapping[str, Any]] | None = None,
    platform: Mapping[str, Any] | None = None,
    others: Mapping[str, Mapping[str, Any]] | None = None,
    sandbox: str | None = None,
) -> str:
    """gateway.toml for a test, by the product's writer (the one config builder of the
    suite): ``settings`` go in [gateway], ``tables`` are [safety], [store], [auth] …, each
    of ``platforms`` gets ``platform`` (default: no minimum interval) and, given the
    ``sandbox`` URL, the env pointing its server there; ``others`` add to (or are more)
    platforms' tables."""
    each = {"min_interval_s": 0} if platform is None else platform
    gateway: dict[str, Any] = {
        "writes": writes,
        "state_dir": state_dir,
        "call_timeout_s": 8,
        **(settings or {}),
    }
    # a test not about patience waits for every platform, however loaded the machine
    gateway.setdefault("answer_within_s", gateway["call_timeout_s"])
    tables_of: dict[str, dict[str, Any]] = {}
    for name in platforms:
        env = {"env": SPECS[name].env(sandbox)} if sandbox is not None else {}
        tables_of[name] = {**env, **each}
    for name, table in (others or {}).items():
        tables_of[name] = {**tables_of.get(name, {}), **table}
    return render(gateway, tables_of, tables)


def config_file(folder: Path, platforms: list[str], *args: Any, **kw: Any) -> Path:
    """`config_text` (state in ``folder``/state) written to ``folder``/gateway.toml."""
    path = folder / "gateway.toml"
    path.write_text(config_text(folder / "state", platforms, *args, **kw), encoding="utf-8")
    return path


def gateway_of(
    state_dir: Path,
    *fakes: FakePlatform,
    clock: Callable[[], float] | None = None,
    wall: Callable[[], float] | None = None,
    **config: Any,
) -> tuple[Gateway, FastMCP[Any]]:
    """The gateway over ``fakes`` (``config``: `config_text`'s) and its MCP server, for a
    test that reaches into it; ``clock`` and ``wall`` are its clocks, if given."""
    times = {k: v for k, v in (("clock", clock), ("wall", wall)) if v is not None}
    transports = {f.profile.name: f.server() for f in fakes}
    config_of = parse(config_text(state_dir, [f.profile.name for f in fakes], **config))
    gw = Gateway(config_of, environ={}, transports=transports, **times)
    return gw, build_gateway(gw.config, gateway=gw)


def in_memory_gateway(
    sandbox: SandboxControl,
    state_dir: Path,
    platforms: list[str],
    writes: str = "live",
    settings: Mapping[str, Any] | None = None,
    tables: Mapping[str, Mapping[str, Any]] | None = None,
    platform: Mapping[str, Any] | None = None,
) -> FastMCP[Any]:
    """The gateway with each platform server in-process, talking HTTP to the sandbox."""
    config = parse(config_text(state_dir, platforms, writes, settings, tables, platform))
    transports = {name: SPECS[name].build(sandbox.url) for name in platforms}
    return build_gateway(config, environ={}, transports=transports)


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


def opportunity_for(scouted: dict[str, Any], platform: str, title_part: str) -> str:
    for o in scouted["opportunities"]:
        if o["platform"] == platform and title_part.lower() in o["title"].lower():
            return str(o["id"])
    raise AssertionError(f"no {platform} opportunity with {title_part!r} in {scouted}")
