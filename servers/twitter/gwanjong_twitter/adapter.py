"""X/Twitter: the official API v2 through tweepy, with twikit as an opt-in first reader.

Reads go to twikit's web session first when one is configured; any failure there falls back
to the official API within the same call (logged on stderr, shown in ``capabilities``).
Writes only ever use the official API. Policy follows X's 2026 rules: posts are automatic,
replies only once X approved the app for AI-generated replies and only to posts that summoned
us (mention or quote), likes not at all on self-serve tiers.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, ClassVar, TypeVar

import anyio
import httpx

from gwanjong_shared.contract import (
    ActionRule,
    Capabilities,
    CommentList,
    Limit,
    LimitName,
    MentionList,
    PostList,
    Unit,
    Validation,
    errors,
)
from gwanjong_shared.contract.errors import UNSURE, ErrorKind, PlatformError
from gwanjong_shared.contract.models import Comment, Post, PostResult
from gwanjong_shared.kit.adapter import PlatformAdapter
from gwanjong_shared.kit.target_cache import TargetCache
from gwanjong_twitter.api import ApiReader
from gwanjong_twitter.mentions import fetch_mentions
from gwanjong_twitter.posts import XPost, compose, flatten, strangers, to_post
from gwanjong_twitter.settings import Settings
from gwanjong_twitter.weighted import MAX_WEIGHTED, has_invalid_characters, weighted_length

if TYPE_CHECKING:  # twikit (and js2py under it) is imported only when the reader is configured
    from gwanjong_twitter.web import WebReader

log = logging.getLogger("gwanjong_twitter")
T = TypeVar("T")

LIMITS: dict[LimitName, Limit] = {
    "body": Limit(max=MAX_WEIGHTED, unit="weighted_chars"),
    "comment": Limit(max=MAX_WEIGHTED, unit="weighted_chars"),
}
POST_REASON = (
    "X's API v2 lets an app post as its own account (POST /2/tweets, 100 per 15 min per user). "
    "X's automation rules still apply: label the account 'Automated', name its operator, and "
    "never post identical text across accounts or into trending topics for reach."
)
REPLY_REASON = (
    "Since 2026-02-23 X accepts a program's reply (self-serve tiers) only when the post being "
    "answered mentions our account or quotes one of our posts; X also allows one reply per "
    "interaction. X approved this app for AI-generated replies (TWITTER_AI_REPLIES_APPROVED=true)."
)
# Every reply gwanjong sends is drafted by a model, so a program-sent reply is an AI reply.
AI_REPLY_UNAPPROVED = (
    "X's developer guidelines say an app whose AI generates and posts replies needs X's prior "
    "approval (the Policy Support form): 'Deploying AI-generated replies without approval is a "
    "violation, even if the content itself is helpful'. A person replies by hand; set "
    "TWITTER_AI_REPLIES_APPROVED=true only once X approved this app for AI-generated replies."
)
LIKE_NEVER = (
    "X removed likes from self-serve API tiers on 2026-04-16 and its automation rules forbid "
    "automatic liking: like the post by hand (set TWITTER_LIKES_ALLOWED=true only for an account "
    "whose tier still includes likes)."
)
LIKE_ALLOWED = (
    "Likes are enabled for this account (TWITTER_LIKES_ALLOWED=true); X's automation rules say "
    "likes must be directly user-initiated and auto-liking is prohibited, so a person approves "
    "each like before it is sent."
)


# What `setup` may save for this server (never endpoints: those come from the operator).
CREDENTIALS = [
    "TWITTER_BEARER_TOKEN",
    "TWITTER_API_KEY",
    "TWITTER_API_SECRET",
    "TWITTER_ACCESS_TOKEN",
    "TWITTER_ACCESS_SECRET",
]


class TwitterAdapter(PlatformAdapter):
    platform: ClassVar[str] = "twitter"
    label: ClassVar[str] = "X"

    def __init__(self, settings: Settings, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.api = ApiReader(settings)
        # validate and the write after it read the target once: every X read is billed
        self.targets: TargetCache[XPost] = TargetCache(clock=clock)
        self.web: WebReader | None = None
        if settings.web_reader_configured():
            from gwanjong_twitter.web import WebReader

            self.web = WebReader(settings)
        # posts this process answered: True once X confirmed the reply, False when its
        # answer was lost (the reply may have landed)
        self._replied: dict[str, bool] = {}
        self._trends: tuple[float, list[str]] | None = None  # (when read, names)
        self.last_fallback: str | None = None

    async def connect(self) -> None:
        await self.api.open()

    async def close(self) -> None:
        await self.api.close()
        if self.web is not None:
            await self.web.close()

    def is_configured(self) -> bool:
        return self.api.user_context()

    # -- reading: web first (when configured), official API always ------------------------

    async def _read(
        self, what: str, web: Callable[[WebReader], Awaitable[T]], api: Callable[[], Awaitable[T]]
    ) -> T:
        # A web session X is rate limiting is skipped until its window resets.
        web_wait = self.web.limiter.longest_wait_s() if self.web is not None else 0.0
        if web_wait > 0 and not self.api.can_read():
            raise errors.rate_limited(
                f"X's web API is rate limiting us. Wait {max(1, math.ceil(web_wait))} seconds "
                "before calling again.",
                web_wait,
            )
        if self.web is not None and web_wait <= 0:
            try:
                # Bounded as a whole, so the fallback still fits in the tool's time limit.
                with anyio.fail_after(self.settings.timeout_s):
                    return await web(self.web)
            except Exception as exc:  # any failure: the official API answers instead
                self.web.recover()
                kind = exc.kind.value if isinstance(exc, PlatformError) else type(exc).__name__
                stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
                self.last_fallback = f"{what} at {stamp} ({kind})"
                level = (
                    logging.INFO
                    if isinstance(exc, PlatformError) and exc.kind is ErrorKind.NOT_FOUND
                    else logging.WARNING
                )
                log.log(
                    level,
                    "twitter: twikit reader failed %s (%s); falling back to the official API",
                    what,
                    kind,
                )
                if not self.api.can_read():
                    raise _web_error(exc, what) from None
        return await api()

    def _reader_note(self) -> str:
        if self.web is None:
            return "Reads use the official API."
        note = "Reads try the twikit web session first and fall back to the official API"
        return note + (
            f"; last fallback: {self.last_fallback}."
            if self.last_fallback
            else "; no fallback yet."
        )

    async def _get(self, post_id: str) -> XPost:
        if not (post_id.isascii() and post_id.isdigit()) or len(post_id) > 20:
            raise errors.invalid_input(
                f"X post ids are numbers (like 1850000000000000000); got {post_id!r}. Use an id from search or trending."
            )
        return await self._read(
            "fetching a post", lambda w: w.get(post_id), lambda: self.api.get(post_id)
        )

    async def _target(self, post_id: str) -> XPost:
        """The post a validate or write acts on, read at most once per TTL."""
        return await self.targets.fetch(post_id, lambda: self._get(post_id))

    async def get_post(self, post_id: str) -> Post:
        return to_post(await self._get(post_id))

    async def search(self, query: str, limit: int) -> list[Post]:
        return (await self.search_list(query, limit)).posts

    async def search_list(self, query: str, limit: int) -> PostList:
        """``more`` when the listing is full, or stopped at the page cap with a next_token
        left (X empties pages of what it may not show: ours may be beyond)."""
        api_query = query if "is:retweet" in query else f"{query} -is:retweet"
        posts, left = await self._read(
            "searching",
            lambda w: _unpaged(w.search(query, limit)),
            lambda: self.api.search(api_query, limit),
        )
        return PostList(posts=[to_post(p) for p in posts], more=left or len(posts) >= limit)

    async def get_trending(self, limit: int) -> list[Post]:
        """The top trends (GET /2/trends/by/woeid), then one search for posts on them: original
        posts only, ranked by likes plus replies."""
        topics = self.settings.trend_topics
        names = await self._trend_names(topics)
        if not names:
            return []
        terms = " OR ".join(f'"{n}"' if " " in n else n for n in names[:topics])
        want = min(100, max(10, limit * 2))
        posts, _left = await self._read(
            "searching trends",
            lambda w: _unpaged(w.search(f"({terms}) -filter:replies", want, product="Top")),
            lambda: self.api.search(f"({terms}) -is:retweet -is:reply", want),
        )
        posts.sort(key=lambda p: (p.likes + p.replies, p.id), reverse=True)
        return [to_post(p) for p in posts[:limit]]

    async def _trend_names(self, topics: int) -> list[str]:
        # Trends change over minutes and every read is billed and rate limited: reuse them,
        # which also leaves trending one request (the search) instead of two in a row.
        cached = self._trends
        if cached is not None and time.monotonic() - cached[0] < self.settings.trends_ttl_s:
            return cached[1]
        names = await self._read(
            "reading trends", lambda w: w.trends(topics), lambda: self.api.trends(topics)
        )
        self._trends = (time.monotonic(), names)
        return names

    async def get_comments(self, post_id: str, limit: int) -> list[Comment]:
        return (await self.comment_list(post_id, limit)).comments

    async def comment_list(self, post_id: str, limit: int) -> CommentList:
        """``more`` when the listing is full, or the conversation's pages stopped at the cap
        with a next_token left."""
        root = await self._get(post_id)  # a missing post is not_found, not an empty thread
        replies, left = await self._read(
            "fetching replies",
            lambda w: _unpaged(w.conversation(root, limit)),
            lambda: self.api.conversation(root, limit),
        )
        starts_conversation = root.conversation_id in ("", root.id)
        comments = flatten(
            root.id,
            replies,
            limit,
            orphans_to_root=starts_conversation,
            conversation_id=root.conversation_id or root.id,
        )
        return CommentList(comments=comments, more=left or len(comments) >= limit)

    # -- validate -------------------------------------------------------------------------

    def measure(self, text: str, unit: Unit) -> int:
        return weighted_length(text) if unit == "weighted_chars" else super().measure(text, unit)

    async def validate(
        self,
        action: str,
        body: str,
        title: str = "",
        post_id: str | None = None,
        tags: list[str] | None = None,
    ) -> Validation:
        # X has no titles: count exactly what write_post sends.
        text = compose(title, body) if action == "write_post" else body
        result = await super().validate(action, text, "", post_id, tags)
        # someone is mentioned (the write checks a reply's mentions again, at its parent)
        if action != "upvote" and strangers(text):
            me = await self.api.me()
            reply = action == "write_comment" and post_id
            author = (await self._target(post_id)).author if reply and post_id else ""
            if why := strangers(text, me[1] if me else "", author):
                result = result.with_problems(why)
        if action != "upvote" and has_invalid_characters(text):
            return result.with_problems(
                "The text holds characters X rejects (U+FFFE, U+FEFF or U+FFFF); remove them."
            )
        return result

    async def rule_for_target(self, action: str, post_id: str, rule: ActionRule) -> ActionRule:
        target = await self._target(post_id)  # a missing target is not_found
        if action != "write_comment" or rule.allowed != "summoned":
            return rule
        return await self._reply_rule(target, rule)

    async def _reply_rule(self, target: XPost, rule: ActionRule) -> ActionRule:
        me = await self.api.me()
        if me is None:
            return ActionRule(
                allowed="human",
                reason=f"{rule.reason} Without OAuth 1.0a credentials this server cannot tell whether the post summoned us.",
            )
        user_id, username = me
        if not target.summons(username, user_id):
            return ActionRule(
                allowed="human",
                reason=f"Post {target.id} neither mentions @{username} nor quotes one of our posts, so X "
                "does not let a program reply to it (summoned-reply rule, 2026-02-23); a person may reply by hand.",
            )
        only_mentioned = target.reply_settings in ("mentionedUsers", "mentioned_users")
        if only_mentioned and not target.mentions_user(username):
            return ActionRule(
                allowed="never",
                reason=f"The author of post {target.id} lets only the accounts it mentions "
                f"reply, and it quotes @{username} without mentioning it: X refuses our reply.",
            )
        if target.reply_settings != "everyone" and not only_mentioned:
            return ActionRule(
                allowed="human",
                reason=f"The author of post {target.id} limited who may reply ({target.reply_settings}); "
                "a program cannot tell whether we qualify, so a person must decide.",
            )
        if target.id in self._replied:
            did = (
                f"We already replied to post {target.id}"
                if self._replied[target.id]
                else f"We may already have replied to post {target.id} (X's answer was lost)"
            )
            return ActionRule(
                allowed="human",
                reason=f"{did}; X's automation rules allow one reply per interaction.",
            )
        return rule

    # -- writes (official API only) -----------------------------------------------------------

    def _need_user_context(self) -> None:
        if not self.is_configured():
            raise errors.auth(
                "Writing to X needs OAuth 1.0a user context: set TWITTER_API_KEY, TWITTER_API_SECRET, "
                "TWITTER_ACCESS_TOKEN and TWITTER_ACCESS_SECRET and restart the server."
            )

    async def write_post(self, title: str, body: str, tags: list[str]) -> PostResult:
        self._need_user_context()
        async with self.api.limiter.paced(write=True):
            post_id = await self.api.create(compose(title, body))
        return PostResult(
            ok=True,
            platform=self.platform,
            action="write_post",
            id=post_id,
            url=self._url(post_id),
        )

    def _reply_base_rule(self) -> ActionRule:
        if self.settings.ai_replies_approved:
            return ActionRule(allowed="summoned", reason=REPLY_REASON)
        return ActionRule(allowed="human", reason=AI_REPLY_UNAPPROVED)

    async def write_comment(self, post_id: str, body: str, parent_id: str | None) -> PostResult:
        rule = self._reply_base_rule()
        if rule.allowed != "summoned":  # checked here too: no path sends around X's rule
            raise errors.not_supported(
                f"write_comment is not allowed for a program on X: {rule.reason}"
            )
        self._need_user_context()
        target = parent_id or post_id
        if target != post_id:
            # The rule is about the post we answer: the comment must have summoned us too.
            rule = await self._reply_rule(await self._target(target), rule)
            if rule.allowed != "summoned":
                raise errors.not_supported(
                    f"write_comment is not allowed for a program on X: {rule.reason}"
                )
            me = self.api.known_me  # read by the _reply_rule just above
            if why := strangers(body, me[1] if me else "", (await self._target(target)).author):
                raise errors.invalid_input(why)
        try:
            async with self.api.limiter.paced(write=True):
                reply_id = await self.api.create(body, reply_to=target)
        except PlatformError as exc:
            if exc.kind in UNSURE:  # it may have landed: it is our one reply until read back
                self._replied.setdefault(target, False)
            raise
        self._replied[target] = True
        self.targets.forget(post_id, target)
        return PostResult(
            ok=True,
            platform=self.platform,
            action="write_comment",
            id=reply_id,
            url=self._url(reply_id),
        )

    async def upvote(self, post_id: str) -> PostResult:
        if not self.settings.likes_allowed:
            raise errors.not_supported(LIKE_NEVER)
        self._need_user_context()
        async with self.api.limiter.paced(write=True):
            await self.api.like(post_id)
        self.targets.forget(post_id)
        return PostResult(ok=True, platform=self.platform, action="upvote", id=post_id)

    def _url(self, post_id: str) -> str:
        # No request after a write (its failure would report a landed post as refused):
        # our name if already known, else x.com/i/status/<id>, which opens any post.
        me = self.api.known_me
        return f"https://x.com/{me[1] if me else 'i'}/status/{post_id}"

    # -- capabilities ---------------------------------------------------------------------

    async def mentions(self, since: str | None, limit: int) -> MentionList:
        return await fetch_mentions(self.api, since, limit)

    async def account(self) -> str | None:
        me = await self.api.me()
        return me[1] if me else None

    def static_capabilities(self) -> Capabilities:
        reader = self._reader_note()
        reply = self._reply_base_rule()
        like = (
            ActionRule(allowed="approved", reason=LIKE_ALLOWED)
            if self.settings.likes_allowed
            else ActionRule(allowed="never", reason=LIKE_NEVER)
        )
        return Capabilities(
            platform=self.platform,
            configured=self.is_configured(),
            actions={
                "write_post": ActionRule(allowed="auto", reason=f"{POST_REASON} {reader}"),
                "write_comment": reply.model_copy(update={"reason": f"{reply.reason} {reader}"}),
                "upvote": like,
            },
            limits=LIMITS,
            credentials=CREDENTIALS,
        )


async def _unpaged(posts: Awaitable[list[XPost]]) -> tuple[list[XPost], bool]:
    """A web read's posts, with no pages said to be left unread (the official API's form)."""
    return await posts, False


def _web_error(exc: BaseException, what: str) -> PlatformError:
    """A twikit failure with no official API to fall back to."""
    if isinstance(exc, PlatformError):
        return exc
    import twikit  # only reached with the web reader on, so already imported

    if isinstance(exc, twikit.errors.TooManyRequests):
        reset = exc.rate_limit_reset
        wait = reset - time.time() if reset else None
        return errors.rate_limited(
            f"X's web API is rate limiting {what}. Wait before calling again.", wait
        )
    if isinstance(
        exc,
        twikit.errors.Unauthorized
        | twikit.errors.Forbidden
        | twikit.errors.AccountLocked
        | twikit.errors.AccountSuspended,
    ):
        return errors.auth(
            "X refused the twikit web session; refresh the cookies file or log in again."
        )
    if isinstance(exc, twikit.errors.NotFound | twikit.errors.TweetNotAvailable):
        return errors.not_found(f"X's web API has no such post ({what}). Check the id.")
    if isinstance(exc, TimeoutError | httpx.TimeoutException):
        return errors.timeout(f"X's web API did not answer in time while {what}. Try again later.")
    return errors.unavailable(
        f"The twikit web reader failed while {what} ({type(exc).__name__}) and no official API "
        "credentials are set to fall back to. Set TWITTER_BEARER_TOKEN."
    )
