"""The real gateway over fake platforms: no sandbox, no subprocess, no network."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fastmcp import FastMCP

from gwanjong_gateway.config import GatewayConfig, parse
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.server import build_gateway
from tests.config import config_text
from tests.fakes.clock import never
from tests.fakes.platform import FakePlatform


def patient_gateway(
    config: GatewayConfig,
    environ: dict[str, str] | None = None,
    transports: dict[str, Any] | None = None,
    **gateway_kwargs: Any,
) -> Gateway:
    """A `Gateway` for a test in this process, whose own deadlines (status's probe, record
    and usage log, scout's `answer_within_s`) never pass by real time: its ``sleep`` is
    `never`, which a test that needs a deadline replaces with a fake clock's it steps.
    ``gateway_kwargs``: the clocks (``clock=``, ``wall=``)."""
    gw = Gateway(config, {} if environ is None else environ, transports, **gateway_kwargs)
    gw.sleep = never
    return gw


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
