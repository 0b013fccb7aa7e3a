"""Building a gateway for tests: in-process platform servers, one client (the config
builder, `config_text` and `config_file`, lives in tests/config.py for every tier)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fastmcp import FastMCP

from gwanjong_gateway.config import parse
from gwanjong_gateway.server import build_gateway
from gwanjong_sandbox.control import SandboxControl
from tests.config import config_file, config_text
from tests.platforms import SPECS

__all__ = ["config_file", "config_text", "in_memory_gateway", "opportunity_for"]


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


def opportunity_for(scouted: dict[str, Any], platform: str, title_part: str) -> str:
    for o in scouted["opportunities"]:
        if o["platform"] == platform and title_part.lower() in o["title"].lower():
            return str(o["id"])
    raise AssertionError(f"no {platform} opportunity with {title_part!r} in {scouted}")
