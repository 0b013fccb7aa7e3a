"""The real gateway over fake platforms: no sandbox, no subprocess, no network."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastmcp import FastMCP

from gwanjong_gateway.config import parse
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.server import build_gateway
from tests.fakes.platform import FakePlatform
from tests.gateway.helpers import config_text


def fake_gateway(
    state_dir: Path,
    *fakes: FakePlatform,
    writes: str = "live",
    extra: str = "",
    platform_extra: str = "min_interval_s = 0",
    tables: str = "",
    **gateway_kwargs: Any,
) -> FastMCP[Any]:
    """The gateway with each fake as one of its platforms (by the fake's profile name).

    ``gateway_kwargs`` go to ``Gateway`` (e.g. ``clock=``); ``tables`` is extra TOML."""
    names = [f.profile.name for f in fakes]
    text = config_text(state_dir, names, writes, extra, platform_extra) + "\n" + tables
    config = parse(text)
    transports = {f.profile.name: f.server() for f in fakes}
    gw = Gateway(config, environ={}, transports=transports, **gateway_kwargs)
    return build_gateway(config, gateway=gw)
