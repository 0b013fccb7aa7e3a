"""Tiny platform servers that misbehave, for the in-process hosting tests.

The tests register them as `gwanjong.platforms` entry points (a throw-away .dist-info on
sys.path), exactly as an installed package would, so the gateway finds them by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import anyio
from fastmcp import FastMCP

from gwanjong_shared.contract import Capabilities, errors
from gwanjong_shared.contract.models import Comment, Post, PostResult
from gwanjong_shared.kit.adapter import PlatformAdapter
from gwanjong_shared.kit.server import build_platform_server


class _Faulty(PlatformAdapter):
    platform: ClassVar[str] = "faulty"
    label: ClassVar[str] = "Faulty"

    async def _fail(self) -> Any:
        raise NotImplementedError

    def is_configured(self) -> bool:
        return False

    async def get_trending(self, limit: int) -> list[Post]:
        return await self._fail()

    async def search(self, query: str, limit: int) -> list[Post]:
        return await self._fail()

    async def get_post(self, post_id: str) -> Post:
        return await self._fail()

    async def get_comments(self, post_id: str, limit: int) -> list[Comment]:
        return await self._fail()

    async def write_post(self, title: str, body: str, tags: list[str]) -> PostResult:
        return await self._fail()

    async def write_comment(self, post_id: str, body: str, parent_id: str | None) -> PostResult:
        return await self._fail()

    async def upvote(self, post_id: str) -> PostResult:
        return await self._fail()

    def static_capabilities(self) -> Capabilities:
        raise NotImplementedError

    async def capabilities(self) -> Capabilities:
        return await self._fail()


class _Raising(_Faulty):
    async def _fail(self) -> Any:
        raise RuntimeError("the adapter blew up")


class _Leaking(_Faulty):
    """A careless server whose error quotes the request, its key in the query."""

    def __init__(self, key: str) -> None:
        self.key = key

    async def _fail(self) -> Any:
        raise errors.unavailable(f"GET https://api.example/v1?key={self.key} failed")


class _Sleeping(_Faulty):
    async def _fail(self) -> Any:
        await anyio.sleep_forever()


class _BadStart(_Faulty):
    async def connect(self) -> None:
        raise RuntimeError("cannot connect")


def raising(env: Mapping[str, str]) -> FastMCP[Any]:
    return build_platform_server(_Raising())


def leaking(env: Mapping[str, str]) -> FastMCP[Any]:
    return build_platform_server(_Leaking(env["LEAKING_KEY"]))


def sleeping(env: Mapping[str, str]) -> FastMCP[Any]:
    # Its own bound is far away: the gateway's call timeout is what must end the call.
    return build_platform_server(_Sleeping(), call_timeout_s=600)


def bad_start(env: Mapping[str, str]) -> FastMCP[Any]:
    return build_platform_server(_BadStart())


def bad_build(env: Mapping[str, str]) -> FastMCP[Any]:
    # a careless third-party server that quotes its credential in the reason
    raise ValueError(f"BADBUILD_TOKEN {env.get('BADBUILD_TOKEN')} is malformed")
