"""The Bluesky MCP server: the platform tool contract over the atproto adapter."""

from __future__ import annotations

from collections.abc import Mapping

from fastmcp import FastMCP

from gwanjong_bluesky.adapter import BlueskyAdapter
from gwanjong_bluesky.profile import PROFILE
from gwanjong_bluesky.settings import Settings
from gwanjong_shared.kit.hosted import settings_from_env
from gwanjong_shared.kit.server import build_platform_server

__all__ = ["Settings", "build_server", "hosted"]


def build_server(settings: Settings) -> FastMCP:
    # A tool call may sign in, resolve a handle and fetch the target before it writes; each
    # request is bounded by TIMEOUT_S, the whole call by a little more than two of them.
    return build_platform_server(
        BlueskyAdapter(settings),
        call_timeout_s=settings.timeout_s * 2 + 5,
        profile=PROFILE,
        hold_file=settings.hold_path(),
    )


def hosted(env: Mapping[str, str]) -> FastMCP:
    """The `gwanjong.platforms` entry point: this server, configured from `env` alone."""
    return build_server(settings_from_env(Settings, env))
