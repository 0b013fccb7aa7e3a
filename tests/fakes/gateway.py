"""The real gateway over fake platforms: no sandbox, no subprocess, no network."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fastmcp import FastMCP

from gwanjong_gateway.config import parse
from gwanjong_gateway.server import build_gateway
from tests.fakes.platform import FakePlatform
from tests.gateway.helpers import config_text, patient_gateway


def fake_gateway(
    state_dir: Path,
    *fakes: FakePlatform,
    writes: str = "live",
    settings: Mapping[str, Any] | None = None,
    tables: Mapping[str, Mapping[str, Any]] | None = None,
    platform: Mapping[str, Any] | None = None,
    others: Mapping[str, Mapping[str, Any]] | None = None,
    **gateway_kwargs: Any,
) -> FastMCP[Any]:
    """The gateway with each fake as one of its platforms (by the fake's profile name).

    ``gateway_kwargs`` go to ``Gateway`` (e.g. ``clock=``); the rest to `config_text`
    (``others``: more platforms, with their own tables)."""
    names = [f.profile.name for f in fakes]
    config = parse(config_text(state_dir, names, writes, settings, tables, platform, others))
    transports = {f.profile.name: f.server() for f in fakes}
    gw = patient_gateway(config, {}, transports, **gateway_kwargs)
    return build_gateway(config, gateway=gw)
