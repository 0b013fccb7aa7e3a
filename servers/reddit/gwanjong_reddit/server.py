"""The Reddit MCP server: the platform tool contract over the asyncpraw adapter."""

from __future__ import annotations

from collections.abc import Mapping

from fastmcp import FastMCP

from gwanjong_reddit.adapter import RedditAdapter
from gwanjong_reddit.profile import PROFILE
from gwanjong_reddit.settings import Settings
from gwanjong_shared.kit.hosted import settings_from_env
from gwanjong_shared.kit.server import build_platform_server

__all__ = ["Settings", "build_server", "hosted"]


def build_server(settings: Settings) -> FastMCP:
    # A call may take several requests (token, post, "more" stubs), each bounded by
    # TIMEOUT_S, plus a wait for Reddit's rate-limit window of up to MAX_WAIT_S.
    return build_platform_server(
        RedditAdapter(settings),
        call_timeout_s=settings.timeout_s * 3 + settings.max_wait_s + 5,
        profile=PROFILE,
        hold_file=settings.hold_path(),
    )


def hosted(env: Mapping[str, str]) -> FastMCP:
    """The `gwanjong.platforms` entry point: this server, configured from `env` alone."""
    return build_server(settings_from_env(Settings, env))
