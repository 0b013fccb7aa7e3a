"""One platform's contract tools, typed: the only place a platform's answer is read.

Each method returns the contract's model, validated here; any failure (platform,
transport, an answer outside the contract) raises one `PlatformError(kind, message,
retry_after)`, its kind from the structured error, its `kind: ` text, or MCP's error code.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any, TypeVar

import anyio
import pydantic
from pydantic import BaseModel

from gwanjong_gateway.platforms.health import PROBE_TTL_S
from gwanjong_gateway.platforms.upstream import Health
from gwanjong_gateway.platforms.upstreams import Reservation, Upstreams
from gwanjong_gateway.rules.ledger import Strike, StrikeAction
from gwanjong_shared.contract import (
    Action,
    Capabilities,
    CommentList,
    MentionList,
    PostList,
    Validation,
)
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.models import Comment, Post, PostResult
from gwanjong_shared.kit.once import find_written

M = TypeVar("M", bound=BaseModel)


class PlatformClient:
    """The contract tools of one platform. `timeout_s` bounds each call (None: the
    gateway's call_timeout_s)."""

    def __init__(self, upstreams: Upstreams, platform: str, timeout_s: float | None = None):
        self.upstreams = upstreams
        self.platform = platform
        self.timeout_s = timeout_s

    async def _call(
        self,
        tool: str,
        arguments: dict[str, Any],
        model: type[M],
        prepaid: Reservation | None = None,
    ) -> M:
        outcome = await self.upstreams.call(
            self.platform, tool, arguments, self.timeout_s, prepaid=prepaid
        )
        outcome.raise_for_error()
        structured = outcome.result.structured_content if outcome.result is not None else None
        try:
            return model.model_validate(structured)
        except pydantic.ValidationError as exc:
            raise PlatformError(
                ErrorKind.UNAVAILABLE,
                f"the {self.platform} server answered {tool} outside the platform contract "
                f"({exc.error_count()} problems); check that server's version.",
            ) from None

    def _ours(self, post: Post) -> Post:
        # A post is on the platform whose server answered, whatever it says: a handle, a
        # draft and a strike follow `platform`, so one server cannot aim them at another.
        return (
            post
            if post.platform == self.platform
            else post.model_copy(update={"platform": self.platform})
        )

    async def trending(self, limit: int = 20) -> list[Post]:
        found = await self._call("trending", {"limit": limit}, PostList)
        return [self._ours(p) for p in found.posts]

    async def search(self, query: str, limit: int = 20) -> list[Post]:
        return (await self.search_list(query, limit)).posts

    async def search_list(self, query: str, limit: int = 20) -> PostList:
        found = await self._call("search", {"query": query, "limit": limit}, PostList)
        return found.model_copy(update={"posts": [self._ours(p) for p in found.posts]})

    async def get_post(self, post_id: str) -> Post:
        post = self._ours(await self._call("get_post", {"post_id": post_id}, Post))
        # The post asked for, whatever id the answer names: draft keeps it for strike, so
        # an answer naming another post must not move the target off the scouted one.
        return post if post.id == post_id else post.model_copy(update={"id": post_id})

    async def get_comments(self, post_id: str, limit: int = 50) -> list[Comment]:
        return (await self.comment_list(post_id, limit)).comments

    async def comment_list(self, post_id: str, limit: int = 50) -> CommentList:
        args = {"post_id": post_id, "limit": limit}
        return await self._call("get_comments", args, CommentList)

    async def mentions(self, since: str | None = None, limit: int = 20) -> MentionList:
        found = await self._call("mentions", {"since": since, "limit": limit}, MentionList)
        return found.model_copy(update={"posts": [self._ours(p) for p in found.posts]})

    async def capabilities(self) -> Capabilities:
        caps = await self._call("capabilities", {}, Capabilities)
        upstream = self.upstreams.get(self.platform)
        if upstream is not None:
            upstream.platform_health.observe_capabilities(caps)
        self.upstreams.profiles.remember(self.platform, caps)  # every answer refreshes it
        return caps

    async def validate(
        self,
        action: Action,
        body: str = "",
        title: str = "",
        post_id: str | None = None,
        tags: list[str] | None = None,
    ) -> Validation:
        args: dict[str, Any] = {"action": action, "body": body, "title": title, "post_id": post_id}
        if tags:  # only then: a server from before tags were validated still answers
            args["tags"] = tags
        return await self._call("validate", args, Validation)

    async def write(
        self, action: Action, arguments: dict[str, Any], prepaid: Reservation | None = None
    ) -> PostResult:
        """One of the three writes by its contract name, with that tool's arguments
        (``prepaid``: its spend reserved by the strike beforehand)."""
        return await self._call(action, arguments, PostResult, prepaid)

    async def find_written(self, row: Strike, *accounts: str | None) -> Comment | Post | None:
        """The comment or new post of ``row`` on the platform, by one of ``accounts``,
        published since the row was made (its claim, or a hand-off's making)
        (kit.once.find_written; none known: nothing is found). Raises PlatformError."""
        target = row.target if row.action is StrikeAction.COMMENT else None
        return await find_written(
            self.comment_list,
            self.search_list,
            target,
            row.title,
            row.content,
            accounts,
            row.created_at,
        )


async def probe(
    upstreams: Upstreams, name: str, ttl_s: float = PROBE_TTL_S, wait_s: float = 5.0
) -> None:
    """Refresh one platform's layer of health with `capabilities` when stale; never
    starts a server and never waits longer than `wait_s`."""
    upstream = upstreams.get(name)
    if upstream is None or upstream.health is not Health.UP:
        return
    if not upstream.platform_health.stale(ttl_s):
        return
    # A failure is observed by the upstream already.
    with anyio.move_on_after(wait_s), contextlib.suppress(PlatformError):
        await PlatformClient(upstreams, name, wait_s + 1).capabilities()


async def probe_all(upstreams: Upstreams, ttl_s: float = PROBE_TTL_S, wait_s: float = 5.0) -> None:
    """Refresh each running platform's reachability (cached for `ttl_s`)."""
    wait = min(wait_s, upstreams.config.gateway.call_timeout_s)
    async with anyio.create_task_group() as tg:
        for name in upstreams.names():
            tg.start_soon(probe, upstreams, name, ttl_s, wait)


async def ensure_profiles(upstreams: Upstreams, names: Iterable[str]) -> None:
    """Ask the platforms not heard from yet for their capabilities (their profile: footer,
    opt-out spellings); draft refreshes them. A failure leaves the generic text in place."""

    async def one(name: str) -> None:
        with contextlib.suppress(PlatformError):  # generic text until it answers
            await PlatformClient(upstreams, name).capabilities()

    missing = [n for n in dict.fromkeys(names) if not upstreams.profiles.answered(n)]
    if missing:
        async with anyio.create_task_group() as tg:
            for name in missing:
                tg.start_soon(one, name)
