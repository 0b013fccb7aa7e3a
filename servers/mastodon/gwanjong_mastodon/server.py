"""The Mastodon MCP server: the platform tool contract over the Mastodon.py adapter."""

from __future__ import annotations

import time
from collections.abc import Mapping

import anyio
from fastmcp import FastMCP

from gwanjong_mastodon.adapter import MastodonAdapter
from gwanjong_mastodon.settings import Settings
from gwanjong_shared.kit.hosted import settings_from_env
from gwanjong_shared.kit.ratelimit import Clock, Sleep
from gwanjong_shared.kit.server import build_platform_server

__all__ = ["Settings", "build_server", "hosted"]


def build_server(
    settings: Settings, *, clock: Clock = time.monotonic, sleep: Sleep = anyio.sleep
) -> FastMCP:
    # No fixed profile: the adapter's capabilities carry it, with the instance's rules.
    # A write may read our account, the target and the instance before it posts.
    adapter = MastodonAdapter(settings, clock=clock, sleep=sleep)
    return build_platform_server(
        adapter, call_timeout_s=settings.timeout_s * 3 + 5, hold_file=settings.hold_path()
    )


def hosted(env: Mapping[str, str]) -> FastMCP:
    """The `gwanjong.platforms` entry point: this server, configured from `env` alone."""
    return build_server(settings_from_env(Settings, env))
