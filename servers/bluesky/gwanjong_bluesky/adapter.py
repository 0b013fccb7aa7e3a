"""Bluesky through the AT Protocol with the ``atproto`` SDK's ``AsyncClient``.

The adapter only wires the parts together: ``session`` (the client, sign-in, one SDK call
with pacing and error mapping), ``threads`` (reads), ``posts`` (views as Post/Comment),
``rules`` (who may act where: summoned, reply gates), ``write`` (records). Payloads are
parsed by the SDK's strict models, then handled as plain dicts (``raw`` keeps them).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

import httpx
from atproto_client import models
from atproto_client.models.utils import get_model_as_dict
from atproto_client.utils import detect_mentions

from gwanjong_bluesky.label import BotLabel
from gwanjong_bluesky.posts import THREAD_VIEW, dig, to_comment, to_post
from gwanjong_bluesky.rules import (
    COMMENT_RULE,
    CREDENTIALS,
    LIMITS,
    MAX_TEXT_BYTES,
    POST_RULE,
    UPVOTE_RULE,
    rule_for_target,
    strangers,
)
from gwanjong_bluesky.session import BlueskyClient
from gwanjong_bluesky.settings import Settings
from gwanjong_bluesky.threads import View, read_comments, read_post, target_view
from gwanjong_bluesky.write import MAX_TAG_BYTES, TAGS, Writer, compose, fixed_langs
from gwanjong_shared.contract import (
    ActionRule,
    Capabilities,
    CommentList,
    MentionList,
    PostList,
    Validation,
)
from gwanjong_shared.contract.models import Comment, Post, PostResult
from gwanjong_shared.kit.adapter import PlatformAdapter
from gwanjong_shared.kit.once import each_once, holding
from gwanjong_shared.kit.ratelimit import Limiter, MinInterval, TokenBucket
from gwanjong_shared.kit.target_cache import TargetCache

#: how many of our newest records (posts and replies) a search, or a thread's read, looks
#: through for ours
OURS = 50
SEARCH_PAGES = 5  # the most search pages one search reads

__all__ = ["BlueskyAdapter"]


class BlueskyAdapter(PlatformAdapter):
    platform: ClassVar[str] = "bluesky"
    label: ClassVar[str] = "Bluesky"

    def __init__(
        self,
        settings: Settings,
        transport: httpx.AsyncBaseTransport | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.limiter = Limiter(
            self.label,
            reads=TokenBucket(settings.requests_per_5min, 300.0),
            writes=(
                TokenBucket(settings.writes_per_hour, 3600.0),
                MinInterval(settings.write_interval_s),
            ),
        )
        self.client = BlueskyClient(settings, self.limiter, transport)
        # validate and the write after it read the target once
        self.targets: TargetCache[View] = TargetCache(clock=clock)
        self.bot_label = BotLabel(self.client, clock)
        self.writer = Writer(self.client, self.targets, self.bot_label)

    async def connect(self) -> None:
        await self.client.connect()

    async def close(self) -> None:
        await self.client.close()

    def is_configured(self) -> bool:
        return self.client.is_configured()

    # -- reads --------------------------------------------------------------------------

    async def get_trending(self, limit: int) -> list[Post]:
        params = models.AppBskyFeedGetFeed.Params(
            feed=self.settings.trending_feed, limit=min(limit, 100)
        )
        response = await self.client.call(
            "reading the trending feed",
            lambda c: c.app.bsky.feed.get_feed(params),
            item="such feed",
        )
        data = get_model_as_dict(response)
        return [to_post(item["post"]) for item in data.get("feed") or []][:limit]

    async def search(self, query: str, limit: int) -> list[Post]:
        return (await self.search_list(query, limit)).posts

    async def search_list(self, query: str, limit: int) -> PostList:
        """Our posts holding the query first, then the search's; ``more`` when the listing
        is full or stopped at SEARCH_PAGES with a cursor left (ours may be beyond)."""
        found, cursor = await self._ours_with(query), None
        # The AppView drops blocked authors' posts from a page and still gives its cursor: a
        # short page is not the last, and a read-back takes a short result for all there is.
        for page in range(SEARCH_PAGES):
            if len(found) >= limit or (page and not cursor):
                break
            params = models.AppBskyFeedSearchPosts.Params(
                q=query, limit=min(limit - len(found), 100), sort="top", cursor=cursor
            )
            response = await self.client.call(
                "searching", lambda c, p=params: c.app.bsky.feed.search_posts(p)
            )
            data = get_model_as_dict(response)
            found = each_once([*found, *map(to_post, data.get("posts") or [])], limit)
            cursor = data.get("cursor")
        # full, or a cursor still given past the last page read: ours may be beyond
        return PostList(posts=found, more=len(found) >= limit or bool(cursor))

    async def _ours_with(self, query: str) -> list[Post]:
        """Our latest posts holding every word of ``query``: an unsure post is read back by
        its words, and a search sorted "top" ranks a new post of ours below everyone's. From
        our repo (replies are not posts)."""
        if not self.is_configured():
            return []
        views = await self._our_views()
        return holding(query, (to_post(v) for v in views if not dig(v, "record", "reply")))

    async def _our_views(self) -> list[View]:
        """Our newest records as post views (no counts), read from our repo on the PDS, which
        holds a post once written: the AppView (search, author feeds, threads) lists it late,
        minutes in a backlog, and an unsure write is read back from what it lists."""
        did, handle = await self.client.me()
        params = models.ComAtprotoRepoListRecords.Params(
            repo=did, collection="app.bsky.feed.post", limit=OURS
        )
        response = await self.client.call(
            "reading our posts", lambda c: c.com.atproto.repo.list_records(params)
        )
        records = get_model_as_dict(response).get("records") or []
        author = {"did": did, "handle": handle}
        return [{**r, "author": author, "record": r.get("value") or {}} for r in records]

    async def get_post(self, post_id: str) -> Post:
        return await read_post(self.client, await self.client.uri(post_id))

    async def get_comments(self, post_id: str, limit: int) -> list[Comment]:
        return (await self.comment_list(post_id, limit)).comments

    async def comment_list(self, post_id: str, limit: int) -> CommentList:
        uri = await self.client.uri(post_id)
        listed = await read_comments(self.client, uri, limit, self.settings.thread_depth)
        if not self.is_configured() or len(listed.comments) >= limit:
            return listed
        # Our replies the AppView does not list yet, under the post or a comment it listed
        where = {uri: None, **{c.id: c for c in listed.comments}}
        shown = {c.id for c in listed.comments}
        late = []
        for view in await self._our_views():
            parent = dig(view, "record", "reply", "parent", "uri")
            if parent in where and view["uri"] not in shown:
                above = where[parent]
                depth, up = (0, None) if above is None else (above.depth + 1, above.id)
                late.append(to_comment(uri, {"$type": THREAD_VIEW, "post": view}, up, depth, set()))
        comments = [*listed.comments, *(c for c in late if c is not None)][:limit]
        return CommentList(comments=comments, more=listed.more)

    async def mentions(self, since: str | None, limit: int) -> MentionList:
        from gwanjong_bluesky.mentions import fetch_mentions

        return await fetch_mentions(self.client, since, limit)

    # -- rules --------------------------------------------------------------------------

    async def account_problem(self) -> str | None:
        return await self.bot_label.problem()  # the `bot` self-label every write requires

    async def rule_for_target(self, action: str, post_id: str, rule: ActionRule) -> ActionRule:
        return await rule_for_target(self.client, self.targets, action, post_id, rule)

    async def validate(
        self,
        action: str,
        body: str,
        title: str = "",
        post_id: str | None = None,
        tags: list[str] | None = None,
    ) -> Validation:
        if action == "write_post":  # count exactly the text write_post will send
            body, title = compose(title, body), ""
        result = await super().validate(action, body, title, post_id, tags)
        size = len(body.encode("utf-8"))
        if action != "upvote" and size > MAX_TEXT_BYTES:
            problem = (
                f"The text is {size} bytes in UTF-8; Bluesky allows {MAX_TEXT_BYTES}. Cut at "
                f"least {size - MAX_TEXT_BYTES} bytes (emoji sequences are long)."
            )
            result = result.with_problems(problem)
        for tag in tags or [] if action == "write_post" else []:
            if len(tag.encode("utf-8")) > MAX_TAG_BYTES:
                result = result.with_problems(
                    f"The tag {tag!r} is over {MAX_TAG_BYTES} bytes in UTF-8, Bluesky's limit."
                )
        # someone is mentioned: read whom (the write checks its mentions too); else, no request
        if action != "upvote" and self.is_configured() and detect_mentions(body):
            author = ""
            if action == "write_comment" and post_id:
                view = await target_view(self.client, self.targets, await self.client.uri(post_id))
                author = str(dig(view, "author", "did") or "")
            facets = await self.writer.facets(body)
            if why := strangers(body, facets, (await self.client.me())[0], author):
                result = result.with_problems(why)
        return result

    async def account(self) -> str | None:
        if not self.is_configured():
            return None
        return (await self.client.me())[1]  # signs in once: tells whether Bluesky is reachable

    def static_capabilities(self) -> Capabilities:
        return Capabilities(
            platform=self.platform,
            configured=self.is_configured(),
            actions={"write_post": POST_RULE, "write_comment": COMMENT_RULE, "upvote": UPVOTE_RULE},
            limits=LIMITS,
            tags=TAGS,
            credentials=CREDENTIALS,
            # BLUESKY_LANGS, shown to the person who approves: a setting, not the text's
            sent_with={"langs": ", ".join(fixed)} if (fixed := fixed_langs(self.settings)) else {},
        )

    # -- writes -------------------------------------------------------------------------

    async def write_post(self, title: str, body: str, tags: list[str]) -> PostResult:
        return await self.writer.post(title, body, tags)

    async def write_comment(self, post_id: str, body: str, parent_id: str | None) -> PostResult:
        return await self.writer.comment(post_id, body, parent_id)

    async def upvote(self, post_id: str) -> PostResult:
        return await self.writer.like(post_id)
