"""The X/Twitter MCP server: the platform tool contract over the tweepy (+ twikit) adapter."""

from __future__ import annotations

from collections.abc import Mapping

from fastmcp import FastMCP

from gwanjong_shared.kit.hosted import settings_from_env
from gwanjong_shared.kit.server import build_platform_server
from gwanjong_twitter.adapter import TwitterAdapter
from gwanjong_twitter.profile import PROFILE
from gwanjong_twitter.settings import Settings

__all__ = ["Settings", "build_server", "hosted"]


def build_server(settings: Settings) -> FastMCP:
    return build_platform_server(
        TwitterAdapter(settings),
        call_timeout_s=settings.timeout_s + 5,
        profile=PROFILE,
        hold_file=settings.hold_path(),
    )


def hosted(env: Mapping[str, str]) -> FastMCP:
    """The `gwanjong.platforms` entry point: this server, configured from `env` alone."""
    return build_server(settings_from_env(Settings, env))
