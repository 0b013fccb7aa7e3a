"""The Dev.to MCP server: the platform tool contract over the Forem adapter."""

from __future__ import annotations

import time
from collections.abc import Mapping

import anyio
from fastmcp import FastMCP

from gwanjong_devto.adapter import DevtoAdapter
from gwanjong_devto.profile import PROFILE
from gwanjong_devto.settings import Settings
from gwanjong_shared.kit.hosted import settings_from_env
from gwanjong_shared.kit.ratelimit import Clock, Sleep
from gwanjong_shared.kit.server import build_platform_server

__all__ = ["Settings", "build_server", "hosted"]


def build_server(
    settings: Settings, *, clock: Clock = time.monotonic, sleep: Sleep = anyio.sleep
) -> FastMCP:
    """``clock`` and ``sleep`` pace the calls (tests pass a clock they advance)."""
    adapter = DevtoAdapter(settings, clock=clock, sleep=sleep)
    return build_platform_server(
        adapter,
        call_timeout_s=settings.timeout_s + 5,
        profile=PROFILE,
        hold_file=settings.hold_path(),
    )


def hosted(env: Mapping[str, str]) -> FastMCP:
    """The `gwanjong.platforms` entry point: this server, configured from `env` alone."""
    return build_server(settings_from_env(Settings, env))
