"""Reddit through asyncpraw: script-app OAuth, or application-only OAuth for reading.

The adapter only wires the parts together: ``client`` (the asyncpraw client and how SDK
work runs), ``gate`` (what every HTTP request passes: hosts, pacing, timeout, retries),
``failures`` (SDK errors as contract errors), ``posts`` (objects as Post/Comment, ids),
``reads`` and ``comments`` (the comment walk), ``rules`` and ``write``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

import asyncpraw
from asyncpraw.models import Submission

from gwanjong_reddit import reads, write
from gwanjong_reddit.bottiquette import Bottiquette
from gwanjong_reddit.client import RedditClient
from gwanjong_reddit.gate import Gate
from gwanjong_reddit.posts import submission_id, subreddit_of
from gwanjong_reddit.rules import (
    COMMENT_RULE,
    CREDENTIALS,
    LIMITS,
    POST_RULE,
    UPVOTE_RULE,
    rule_for_thread,
)
from gwanjong_reddit.settings import Settings
from gwanjong_shared.contract import (
    ActionRule,
    Capabilities,
    CommentList,
    MentionList,
    Validation,
    errors,
)
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.contract.models import Comment, Post, PostResult
from gwanjong_shared.kit.adapter import PlatformAdapter
from gwanjong_shared.kit.target_cache import TargetCache

__all__ = ["RedditAdapter"]


class RedditAdapter(PlatformAdapter):
    platform: ClassVar[str] = "reddit"
    label: ClassVar[str] = "Reddit"

    def __init__(self, settings: Settings, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.api = RedditClient(settings)
        # validate and the write after it read the target once
        self.targets: TargetCache[Submission] = TargetCache(clock=clock)
        self._account: str | None = None
        self.bottiquette = Bottiquette(self.api, clock)  # r/Bottiquette's lists, read daily

    @property
    def gate(self) -> Gate:
        return self.api.gate

    def user_agent(self) -> str:
        return self.api.user_agent()

    def _client(self) -> asyncpraw.Reddit:
        return self.api.reddit()

    async def connect(self) -> None:
        self.api.reddit()  # no request yet: the token is fetched with the first call

    async def close(self) -> None:
        await self.api.close()

    def is_configured(self) -> bool:
        return self.api.is_configured()

    # -- reads ----------------------------------------------------------------------

    async def get_trending(self, limit: int) -> list[Post]:
        return await reads.hot(self.api, limit)

    async def search(self, query: str, limit: int) -> list[Post]:
        return await reads.search(self.api, query, limit)

    async def get_post(self, post_id: str) -> Post:
        return await reads.post(self.api, post_id)

    async def get_comments(self, post_id: str, limit: int) -> list[Comment]:
        return (await reads.comments(self.api, post_id, limit)).comments

    async def comment_list(self, post_id: str, limit: int) -> CommentList:
        return await reads.comments(self.api, post_id, limit)

    async def mentions(self, since: str | None, limit: int) -> MentionList:
        from gwanjong_reddit.mentions import fetch_mentions

        return await fetch_mentions(self.api, since, limit)

    # -- writes ---------------------------------------------------------------------

    async def write_post(self, title: str, body: str, tags: list[str]) -> PostResult:
        return await write.write_post(self.api, self.bottiquette, title, body)

    async def write_comment(self, post_id: str, body: str, parent_id: str | None) -> PostResult:
        return await write.write_comment(
            self.api, self.targets, self.bottiquette, post_id, body, parent_id
        )

    async def upvote(self, post_id: str) -> PostResult:
        raise errors.not_supported(UPVOTE_RULE.reason)

    # -- capabilities and validate --------------------------------------------------

    def static_capabilities(self) -> Capabilities:
        return Capabilities(
            platform=self.platform,
            configured=self.is_configured(),
            destination=f"r/{sub}" if (sub := self.settings.post_subreddit) else "",
            actions={"write_post": POST_RULE, "write_comment": COMMENT_RULE, "upvote": UPVOTE_RULE},
            limits=LIMITS,
            credentials=CREDENTIALS,
        )

    async def capabilities(self) -> Capabilities:
        caps = await super().capabilities()
        post, sub = caps.actions["write_post"], self.settings.post_subreddit
        if caps.account is None or not sub:
            return caps
        try:
            post = await self.bottiquette.rule("write_post", sub, post)
        except PlatformError:  # no verdict (out of reach, keys refused): the rules answer
            return caps
        return caps.model_copy(update={"actions": {**caps.actions, "write_post": post}})

    async def account(self) -> str | None:
        if not self.is_configured():
            return None
        if self._account is None:

            async def me(reddit: asyncpraw.Reddit) -> object:
                return await reddit.user.me()

            user = await self.api.run("checking the account", me, missing="account")
            name = vars(user).get("name") if user is not None else None
            self._account = str(name) if name else None
        return self._account

    async def validate(
        self,
        action: str,
        body: str,
        title: str = "",
        post_id: str | None = None,
        tags: list[str] | None = None,
    ) -> Validation:
        result = await super().validate(action, body, title, post_id, tags)
        if action == "write_post" and not self.settings.post_subreddit:
            problem = (
                "No subreddit to post in: set REDDIT_POST_SUBREDDIT to one whose rules allow it."
            )
            return result.with_problems(problem)
        if action == "write_post" and result.allowed in ("auto", "approved"):
            try:
                rule = await self.bottiquette.rule(
                    action, self.settings.post_subreddit or "", POST_RULE
                )
            except PlatformError:  # no verdict (out of reach, keys refused): the write checks
                return result
            if rule.allowed in ("never", "human"):
                problems = [*result.problems, rule.reason]
                update = {"ok": False, "allowed": rule.allowed, "problems": problems}
                return result.model_copy(update=update)
        return result

    async def rule_for_target(self, action: str, post_id: str, rule: ActionRule) -> ActionRule:
        sid = submission_id(post_id)
        # a missing target is not_found; the write right after reuses this read
        submission = await self.targets.fetch(
            sid, lambda: reads.load(self.api, sid, comment_limit=1)
        )
        rule = rule_for_thread(action, submission, rule)
        return await self.bottiquette.rule(action, subreddit_of(submission), rule)
