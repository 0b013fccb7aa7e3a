"""Building a gateway for tests: config text, in-process platform servers, one client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastmcp import FastMCP

from gwanjong_gateway.config import parse
from gwanjong_gateway.server import build_gateway
from gwanjong_sandbox.control import SandboxControl
from tests.platforms import SPECS


def config_text(
    state_dir: Path,
    platforms: list[str],
    writes: str = "live",
    extra: str = "",
    platform_extra: str = "min_interval_s = 0",
) -> str:
    lines = [
        "[gateway]",
        f'writes = "{writes}"',
        f'state_dir = "{state_dir.as_posix()}"',
        "call_timeout_s = 8",
        "",
    ]
    if extra:
        lines += [extra, ""]
    for name in platforms:
        lines += [f"[platforms.{name}]", platform_extra, ""]
    return "\n".join(lines)


def in_memory_gateway(
    sandbox: SandboxControl,
    state_dir: Path,
    platforms: list[str],
    writes: str = "live",
    extra: str = "",
    platform_extra: str = "min_interval_s = 0",
) -> FastMCP[Any]:
    """The gateway with each platform server in-process, talking HTTP to the sandbox."""
    config = parse(config_text(state_dir, platforms, writes, extra, platform_extra))
    transports = {name: SPECS[name].build(sandbox.url) for name in platforms}
    return build_gateway(config, environ={}, transports=transports)


def opportunity_for(scouted: dict[str, Any], platform: str, title_part: str) -> str:
    for o in scouted["opportunities"]:
        if o["platform"] == platform and title_part.lower() in o["title"].lower():
            return str(o["id"])
    raise AssertionError(f"no {platform} opportunity with {title_part!r} in {scouted}")
