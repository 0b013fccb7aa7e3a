"""Reddit through asyncpraw: script-app OAuth, or application-only OAuth for reading.

asyncpraw is the real client; this module only adds what a long-running MCP server needs
around it:

* a Requestor that bounds every HTTP request by ``REDDIT_TIMEOUT_S`` (asyncprawcore passes
  its own 16 s constant to every request and ignores asyncpraw's ``timeout`` setting), paces
  requests client-side, remembers the ``x-ratelimit-*`` headers and refuses any host but the
  configured ones;
* a retry strategy for 5xx with a configurable backoff (asyncprawcore's sleeps 0-2 s, then
  2-4 s, and offers no option for it);
* one error mapping from asyncpraw/asyncprawcore exceptions, including the errors Reddit
  sends with HTTP 200 (``{"json": {"errors": [...]}}``), to the shared error kinds;
* a comment walk that loads "more" stubs through ``/api/morechildren`` in thread order until
  the caller's limit is met, then flattens depth-first with parent and depth.
"""

from __future__ import annotations

import logging
import math
import random
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from typing import Any, ClassVar, TypeVar
from urllib.parse import urlsplit

import aiohttp
import asyncpraw
import asyncprawcore
from asyncpraw.exceptions import (
    ClientException,
    InvalidURL,
    ReadOnlyException,
    RedditAPIException,
)
from asyncpraw.models import Comment as RedditComment
from asyncpraw.models import MoreComments, Redditor, Submission, Subreddit
from asyncpraw.models.base import AsyncPRAWBase
from asyncpraw.models.comment_forest import CommentForest
from asyncprawcore.requestor import Requestor
from asyncprawcore.sessions import FiniteRetryStrategy, Session

from gwanjong_reddit.settings import Settings
from gwanjong_shared import errors
from gwanjong_shared.adapter import PlatformAdapter
from gwanjong_shared.contract import (
    ActionRule,
    Capabilities,
    Limit,
    LimitName,
    MentionList,
    Validation,
)
from gwanjong_shared.errors import PlatformError
from gwanjong_shared.host_gate import HostAllowList, HostNotAllowed
from gwanjong_shared.http import error_for_status
from gwanjong_shared.models import Comment, Post, PostResult, RateLimit
from gwanjong_shared.ratelimit import ANY, Limiter, MinInterval, TokenBucket

log = logging.getLogger(__name__)
T = TypeVar("T")

WEB = "https://www.reddit.com"  # public links always point at the real site
_ID36 = re.compile(r"^[0-9a-z]{1,13}$")
_NOT_PAYLOAD = frozenset({"comments", "comment_limit", "comment_sort", "submission"})
_WAIT = re.compile(r"(\d+)\s*(milliseconds?|seconds?|minutes?|hours?)", re.IGNORECASE)

POST_RULE = ActionRule(
    allowed="auto",
    reason="Reddit's API lets an approved script app submit self-posts as its own account. "
    "Follow the subreddit's rules on bots and self-promotion, say that the account is "
    "automated, and never post the same text to several subreddits.",
)
COMMENT_RULE = ActionRule(
    allowed="auto",
    reason="Reddit's API lets an approved script app reply as its own account, but each "
    "subreddit's rules and r/Bottiquette still apply: many subreddits ban bots (read the "
    "sidebar first), the account must disclose that it is a bot, and one reply per thread "
    "is the norm.",
)
UPVOTE_RULE = ActionRule(
    allowed="never",
    reason="Reddit's Content Policy forbids vote manipulation, 'manual, programmatic, or "
    "otherwise' (reddithelp article 360043066412), so a program must never vote.",
)
LIMITS: dict[LimitName, Limit] = {
    "title": Limit(max=300, unit="chars"),
    "body": Limit(max=40_000, unit="chars"),
    "comment": Limit(max=10_000, unit="chars"),
}
READ_ONLY = (
    "This Reddit server is read-only: no account is configured. Set REDDIT_USERNAME and "
    "REDDIT_PASSWORD (the account must be a developer of the script app) and restart it."
)
NO_APP = (
    "No Reddit app is configured. Set REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET from a "
    "'script' app at reddit.com/prefs/apps (new apps need Reddit's approval), then restart."
)

try:
    __version__ = version("gwanjong-reddit")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.1.0"


# What `setup` may save for this server (never endpoints: those come from the operator).
CREDENTIALS = ["REDDIT_CLIENT_ID", "REDDIT_CLIENT_SECRET", "REDDIT_USERNAME", "REDDIT_PASSWORD"]


class Gate:
    """What every HTTP request passes through: host check, pacing, timeout, budget."""

    def __init__(self, settings: Settings) -> None:
        self.timeout_s = settings.timeout_s
        self.hosts = HostAllowList(
            urlsplit(u).hostname or "" for u in (settings.api_url, settings.token_url)
        )
        # Reddit's budget is per account, whatever the endpoint: one window (ANY).
        self.limiter = Limiter(
            "Reddit",
            reads=TokenBucket(settings.requests_per_minute, 60.0),
            writes=MinInterval(settings.write_interval_s),
        )
        self.forbidden: dict[int, str] = {}  # id(response) -> Reddit's reason for a 403

    @property
    def rate_limit(self) -> RateLimit:
        """What Reddit last said about our budget (``x-ratelimit-*``)."""
        return self.limiter.windows.get(ANY, RateLimit())

    def check_host(self, url: str) -> None:
        self.hosts.check(urlsplit(url).hostname or "")

    async def observe(self, response: aiohttp.ClientResponse) -> None:
        self.limiter.observe(ANY, response.status, response.headers)
        if response.status == 403:
            # asyncprawcore raises Forbidden without reading the body; its reason
            # ("private", "quarantined", "gated") is what tells a closed subreddit from bad
            # credentials.
            try:
                body = await response.json(content_type=None)
            except (ValueError, aiohttp.ClientError):
                return
            reason = body.get("reason") if isinstance(body, dict) else None
            if isinstance(reason, str) and reason:
                self.forbidden[id(response)] = reason

    def wait_s(self) -> float:
        return self.limiter.wait_s(ANY)


class GatedRequestor(Requestor):
    """asyncprawcore's Requestor, with our bound, pacing and allow-list on every request."""

    def __init__(self, *, gate: Gate, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._gate = gate

    @asynccontextmanager
    async def request(  # same call shape as the SDK's; the timeout is ours
        self,
        *args: Any,
        timeout: float | None = None,  # noqa: ASYNC109 - the SDK's signature; ignored
        **kwargs: Any,
    ) -> AsyncIterator[aiohttp.ClientResponse]:
        url = str(args[1]) if len(args) > 1 else str(kwargs.get("url", ""))
        self._gate.check_host(url)
        await self._gate.limiter.pace()
        # asyncprawcore always passes its module constant (16 s); ours is the setting.
        async with super().request(*args, timeout=self._gate.timeout_s, **kwargs) as response:
            await self._gate.observe(response)
            yield response


def retry_strategy(count: int, backoff_s: float) -> type[FiniteRetryStrategy]:
    """asyncprawcore's finite retries with our count and backoff (0-b, then b-2b, ...)."""

    class Retry(FiniteRetryStrategy):
        def __init__(self, retries: int = count) -> None:
            super().__init__(retries=retries)

        def _sleep_seconds(self) -> float | None:
            if self.retries >= count:
                return None
            attempt = count - self.retries
            return backoff_s * (attempt - 1 + random.random())

        def consume_available_retry(self) -> FiniteRetryStrategy:
            return type(self)(retries=self.retries - 1)

    return Retry


def closed_subreddit(reason: str, missing: str) -> PlatformError:
    """A 403 whose body names why the subreddit is closed to us: not a credentials problem."""
    if reason == "quarantined":
        return errors.not_supported(
            f"Reddit refused access to {missing}: the subreddit is quarantined, and its content "
            "is only served to accounts that opted in on the website. Pick another subreddit "
            "or post."
        )
    if reason == "private":
        return errors.not_supported(
            f"Reddit refused access to {missing}: the subreddit is private (members only). "
            "Pick another subreddit or post; our credentials are fine."
        )
    return errors.not_supported(
        f"Reddit refused access to {missing}: the subreddit is closed to us ({reason[:40]}). "
        "Pick another subreddit or post."
    )


def retry_after(headers: Any) -> float | None:
    """Seconds to wait: ``Retry-After``, else ``x-ratelimit-reset``."""
    for name in ("retry-after", "x-ratelimit-reset"):
        value = headers.get(name)
        if value:
            try:
                return max(0.0, float(value))
            except ValueError:
                continue
    return None


def _wait_in(message: str) -> float | None:
    """'Take a break for 9 minutes' / 'try again in 6 seconds' -> seconds."""
    match = _WAIT.search(message)
    if not match:
        return None
    amount, unit = int(match.group(1)), match.group(2).lower()
    if unit.startswith("millisecond"):
        return 1.0
    if unit.startswith("minute"):
        return amount * 60.0
    if unit.startswith("hour"):
        return amount * 3600.0
    return float(amount)


def _iso(epoch: Any) -> str | None:
    if epoch is None:
        return None
    try:
        moment = datetime.fromtimestamp(float(epoch), UTC)
    except (TypeError, ValueError, OverflowError):
        return None
    return moment.isoformat().replace("+00:00", "Z")


def _items(forest: CommentForest | list[Any]) -> list[Any]:
    """The top level of a comment forest (it has no ``__iter__``, only indexing)."""
    if isinstance(forest, list):
        return list(forest)
    return [forest[i] for i in range(len(forest))]


def _raw(thing: object) -> dict[str, Any]:
    """The payload asyncpraw parsed, with its objects turned back into names."""
    out: dict[str, Any] = {}
    for key, value in vars(thing).items():
        if key.startswith("_") or key in _NOT_PAYLOAD:
            continue
        if isinstance(value, (Redditor, Subreddit)):
            value = str(value)
        elif isinstance(value, AsyncPRAWBase):
            continue
        out[key] = value
    return out


class RedditAdapter(PlatformAdapter):
    platform: ClassVar[str] = "reddit"
    label: ClassVar[str] = "Reddit"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.gate = Gate(settings)
        self._reddit: asyncpraw.Reddit | None = None
        self._account: str | None = None

    # -- client ---------------------------------------------------------------------

    def user_agent(self) -> str:
        """Reddit's required form: ``<platform>:<app id>:<version> (by /u/<username>)``."""
        if self.settings.user_agent:
            return self.settings.user_agent
        agent = f"python:gwanjong-reddit:{__version__}"
        developer = self.settings.developer or self.settings.username
        return f"{agent} (by /u/{developer})" if developer else agent

    def _client(self) -> asyncpraw.Reddit:
        if self._reddit is not None:
            return self._reddit
        s = self.settings
        if not s.client_id:
            raise errors.auth(NO_APP)
        if not (s.developer or s.username or s.user_agent):
            log.warning("reddit: set REDDIT_DEVELOPER so the User-Agent names who runs this app")
        reddit = asyncpraw.Reddit(
            client_id=s.client_id,
            client_secret=s.client_secret.get_secret_value() if s.client_secret else None,
            username=s.username if s.has_user else None,
            password=s.password.get_secret_value() if s.has_user and s.password else None,
            user_agent=self.user_agent(),
            oauth_url=s.api_url,
            reddit_url=s.token_url,
            check_for_updates=False,  # it would query PyPI on the first request
            ratelimit_seconds=s.ratelimit_seconds,
            requestor_class=GatedRequestor,
            requestor_kwargs={"gate": self.gate},
        )
        # asyncprawcore has no option for its 5xx retry schedule; set it on each session.
        strategy = retry_strategy(s.retries, s.retry_backoff_s)
        for core in (reddit._core, reddit._read_only_core, reddit._authorized_core):
            if isinstance(core, Session):
                core._retry_strategy_class = strategy
        self._reddit = reddit
        return reddit

    async def connect(self) -> None:
        self._client()  # no request yet: the token is fetched with the first call

    async def close(self) -> None:
        if self._reddit is not None:
            await self._reddit.close()
            self._reddit = None

    def is_configured(self) -> bool:
        s = self.settings
        return bool(s.client_id and s.client_secret and s.has_user)

    async def _run(
        self,
        what: str,
        call: Callable[[asyncpraw.Reddit], Awaitable[T]],
        *,
        missing: str = "such item",
    ) -> T:
        """Run SDK work, honouring Reddit's budget first and mapping every failure."""
        reddit = self._client()
        # A short wait (up to MAX_WAIT_S) is slept through; a longer one refused at once.
        await self.gate.limiter.wait_or_refuse(ANY, tolerate_s=self.settings.max_wait_s)
        try:
            return await call(reddit)
        except PlatformError:
            raise
        except Exception as exc:
            log.debug("reddit: %s failed with %s", what, type(exc).__name__)
            raise self._error(exc, what, missing) from None

    # -- errors ---------------------------------------------------------------------

    def _error(self, exc: Exception, what: str, missing: str) -> PlatformError:
        if isinstance(exc, RedditAPIException):
            return self._api_error(exc, missing)
        if isinstance(exc, HostNotAllowed):
            return errors.unavailable(
                f"Refused to contact {exc.host!r}: only the configured Reddit hosts are allowed. "
                "Check REDDIT_BASE_URL, REDDIT_OAUTH_URL and REDDIT_WWW_URL."
            )
        if isinstance(exc, ReadOnlyException):
            return errors.auth(READ_ONLY)
        if isinstance(exc, asyncprawcore.OAuthException):
            return errors.auth(
                f"Reddit refused the login ({exc.error}). Check REDDIT_USERNAME and "
                "REDDIT_PASSWORD: the account must be a developer of the app, and accounts "
                "with two-factor login cannot use a script app's password grant."
            )
        if isinstance(exc, asyncprawcore.Redirect):
            return errors.not_found(
                f"Reddit has no {missing}: it answered with its subreddit search. Check the "
                "subreddit names."
            )
        if isinstance(exc, asyncprawcore.TooManyRequests):
            wait = retry_after(exc.response.headers)
            seconds = 60 if wait is None else max(1, math.ceil(wait))
            return errors.rate_limited(
                f"Reddit is rate limiting us (HTTP 429). Wait {seconds} seconds before calling "
                "again.",
                wait,
            )
        if isinstance(exc, (asyncprawcore.InvalidToken, asyncprawcore.InsufficientScope)):
            return errors.auth(
                "Reddit rejected our access token. Check REDDIT_CLIENT_ID and "
                "REDDIT_CLIENT_SECRET (and that the app still has API access), then retry."
            )
        if isinstance(exc, asyncprawcore.Forbidden):
            reason = self.gate.forbidden.pop(id(exc.response), "")
            if reason:
                return closed_subreddit(reason, missing)
            return errors.auth(
                f"Reddit refused access to {missing} (403): the subreddit may be private, the "
                "account banned there, or the app's access revoked. Check the credentials."
            )
        if isinstance(exc, asyncprawcore.NotFound):
            return errors.not_found(
                f"Reddit has no {missing}. Check the id: use one from search or trending."
            )
        if isinstance(exc, asyncprawcore.ResponseException):
            return error_for_status(
                exc.response.status,
                self.label,
                retry_after=retry_after(exc.response.headers),
                what=missing,
            )
        if isinstance(exc, asyncprawcore.RequestException):
            original = exc.original_exception
            if isinstance(original, HostNotAllowed):
                return self._error(original, what, missing)
            if isinstance(original, TimeoutError):
                return errors.timeout(
                    f"Reddit did not answer within {self.settings.timeout_s:g} s while {what}. "
                    "Try again; if it keeps happening Reddit may be down."
                )
            return errors.unavailable(
                f"Could not reach Reddit while {what} ({type(original).__name__}). Check the "
                "network or REDDIT_BASE_URL, then try again."
            )
        if isinstance(exc, TimeoutError):
            return errors.timeout(f"Reddit did not answer in time while {what}. Try again later.")
        if isinstance(exc, InvalidURL):
            return errors.invalid_input(
                "That is not a Reddit post URL. Use an id from search or trending."
            )
        return errors.unavailable(
            f"Reddit failed while {what} ({type(exc).__name__}). Try again; if it keeps "
            "failing, check the server's log."
        )

    def _api_error(self, exc: RedditAPIException, missing: str) -> PlatformError:
        """Errors Reddit sends with HTTP 200: ``{"json": {"errors": [[type, message, field]]}}``."""
        item = exc.items[0]
        kind, message, field = item.error_type, item.message or "", item.field or ""
        where = f" (field {field})" if field else ""
        if kind == "RATELIMIT":
            wait = _wait_in(message)
            seconds = 60 if wait is None else max(1, math.ceil(wait))
            return errors.rate_limited(
                f"Reddit says this account is writing too often: {message!r}. Wait {seconds} "
                "seconds before writing again.",
                wait,
            )
        if kind in ("DELETED_COMMENT", "DELETED_LINK"):
            return errors.not_found(
                f"Reddit says the target is gone ({kind}: {message}). Pick another post or comment."
            )
        if kind in ("SUBREDDIT_NOEXIST", "SUBREDDIT_REQUIRED", "BAD_SR_NAME"):
            return errors.not_found(
                f"Reddit has no {missing} ({kind}). Set REDDIT_POST_SUBREDDIT to an existing "
                "subreddit."
            )
        if kind in (
            "THREAD_LOCKED",
            "TOO_OLD",
            "SUBREDDIT_NOTALLOWED",
            "NOT_WHITELISTED_BY_USER",
            "USER_BLOCKED",
            "BANNED_FROM_SUBREDDIT",
        ):
            return errors.not_supported(
                f"Reddit does not let this account do that here ({kind}: {message}). A person "
                "can check the subreddit's rules."
            )
        if kind in ("USER_REQUIRED", "INVALID_USER"):
            return errors.auth(READ_ONLY)
        return errors.invalid_input(
            f"Reddit refused the request: {kind}: {message}{where}. Fix it and try again."
        )

    # -- mapping --------------------------------------------------------------------

    def _post(self, submission: Submission) -> Post:
        d = _raw(submission)
        flair = d.get("link_flair_text")
        body = d.get("selftext") or ""
        if not body and not d.get("is_self", True):
            body = str(d.get("url") or "")
        return Post(
            id=str(d["id"]),
            platform=self.platform,
            title=str(d.get("title") or ""),
            url=WEB + str(d.get("permalink") or f"/comments/{d['id']}/"),
            body=body,
            author=str(d.get("author") or ""),  # None when the account was deleted
            tags=[str(d.get("subreddit") or "")] + ([str(flair)] if flair else []),
            likes=int(d.get("score") or 0),
            comments_count=int(d.get("num_comments") or 0),
            published_at=_iso(d.get("created_utc")),
            raw=d,
        )

    def _comment(
        self, item: RedditComment, post_id: str, parent: str | None, depth: int
    ) -> Comment:
        d = _raw(item)
        return Comment(
            id=str(d["id"]),
            platform=self.platform,
            post_id=post_id,
            parent_id=parent,
            author=str(d.get("author") or ""),  # deleted/removed: no author, place kept
            body=str(d.get("body") or ""),
            likes=int(d.get("score") or 0),
            published_at=_iso(d.get("created_utc")),
            depth=depth,
            raw=d,
        )

    @staticmethod
    def _submission_id(post_id: str) -> str:
        value = post_id.strip()
        if "/" in value:
            host = (urlsplit(value).hostname or "").lower()
            reddit_host = host in ("reddit.com", "redd.it") or host.endswith(".reddit.com")
            try:
                value = Submission.id_from_url(value) if reddit_host else "?"
            except InvalidURL:
                value = "?"
        value = value.lower().removeprefix("t3_")
        if not _ID36.match(value):
            raise errors.invalid_input(
                "Reddit post ids are base-36 like '1abc2de' (also 't3_1abc2de' or the post's "
                f"URL); got {post_id[:60]!r}. Use an id from search or trending."
            )
        return value

    @staticmethod
    def _comment_id(comment_id: str) -> str:
        value = comment_id.strip().lower().removeprefix("t1_")
        if not _ID36.match(value):
            raise errors.invalid_input(
                "parent_id must be a Reddit comment id like 'o5abc12' (or 't1_o5abc12'); got "
                f"{comment_id[:60]!r}. Use an id from get_comments."
            )
        return value

    # -- reads ----------------------------------------------------------------------

    async def get_trending(self, limit: int) -> list[Post]:
        names = "+".join(self.settings.subreddits) or "popular"

        async def hot(reddit: asyncpraw.Reddit) -> list[Post]:
            subreddit = await reddit.subreddit(names)
            found: list[Post] = []
            # Pinned mod posts top every hot list; they are not discussions, so skip them.
            async for submission in subreddit.hot(limit=min(100, limit + 2)):
                if vars(submission).get("stickied"):
                    continue
                found.append(self._post(submission))
                if len(found) >= limit:
                    break
            return found

        missing = f"subreddit r/{names} (REDDIT_SUBREDDITS)"
        return await self._run("reading hot posts", hot, missing=missing)

    async def search(self, query: str, limit: int) -> list[Post]:
        scope = "all" if self.settings.search_scope == "all" else "+".join(self.settings.subreddits)

        async def find(reddit: asyncpraw.Reddit) -> list[Post]:
            subreddit = await reddit.subreddit(scope or "all")
            listing = subreddit.search(
                query, sort="relevance", time_filter=self.settings.search_time, limit=limit
            )
            return [self._post(s) async for s in listing][:limit]

        return await self._run("searching", find, missing=f"subreddit r/{scope}")

    async def _load(self, post_id: str, comment_limit: int) -> Submission:
        sid = self._submission_id(post_id)

        async def load(reddit: asyncpraw.Reddit) -> Submission:
            submission = await reddit.submission(sid, fetch=False)
            submission.comment_limit = comment_limit
            await submission.load()
            return submission

        submission = await self._run(f"fetching post {sid}", load, missing=f"post {sid}")
        d = vars(submission)
        if d.get("removed_by_category") == "deleted" or (
            d.get("author") is None and d.get("selftext") == "[deleted]"
        ):
            raise errors.not_found(
                f"Reddit post {sid} was deleted by its author. Pick another post from search or "
                "trending."
            )
        return submission

    async def get_post(self, post_id: str) -> Post:
        # One comment is enough: the post is what we want here.
        return self._post(await self._load(post_id, comment_limit=1))

    async def get_comments(self, post_id: str, limit: int) -> list[Comment]:
        submission = await self._load(post_id, comment_limit=min(max(limit, 1), 500))

        async def walk(_reddit: asyncpraw.Reddit) -> list[Comment]:
            return await self._flatten(submission, limit)

        sid = str(vars(submission)["id"])
        return await self._run(f"loading more comments of post {sid}", walk, missing=f"post {sid}")

    async def _flatten(self, submission: Submission, limit: int) -> list[Comment]:
        """Depth-first, parents before replies; "more" stubs are loaded where the walk meets
        them (``/api/morechildren``, or the thread's permalink for "continue this thread")
        while ``limit`` is not reached and ``REDDIT_MORE_REQUESTS`` allows."""
        post_id = str(vars(submission)["id"])
        root = f"t3_{post_id}"
        children: dict[str, list[Any]] = {}
        seen: set[str] = set()

        def adopt(items: Iterable[Any]) -> list[Any]:
            kept: list[Any] = []
            for item in items:
                if isinstance(item, RedditComment):
                    name = f"t1_{vars(item)['id']}"
                    if name in seen:
                        continue
                    seen.add(name)
                    children.setdefault(name, []).extend(adopt(_items(item.replies)))
                kept.append(item)
            return kept

        async def expand(more: MoreComments) -> list[Any]:
            parent = str(vars(more).get("parent_id") or root)
            more.submission = submission
            direct: list[Any] = []
            for item in _items(await more.comments(update=False)):
                owner = str(vars(item).get("parent_id") or parent)
                target = direct if owner == parent else children.setdefault(owner, [])
                target.extend(adopt([item]))
            return direct

        top = adopt(_items(submission.comments))
        budget = self.settings.more_requests
        out: list[Comment] = []
        stack: list[tuple[Any, str | None, int]] = [(item, None, 0) for item in reversed(top)]
        while stack and len(out) < limit:
            item, parent, depth = stack.pop()
            if isinstance(item, MoreComments):
                if budget > 0:
                    budget -= 1
                    stack.extend((x, parent, depth) for x in reversed(await expand(item)))
                continue
            if not isinstance(item, RedditComment):
                continue
            comment = self._comment(item, post_id, parent, depth)
            out.append(comment)
            replies = children.get(f"t1_{comment.id}", [])
            stack.extend((x, comment.id, depth + 1) for x in reversed(replies))
        return out

    # -- writes ---------------------------------------------------------------------

    def _require_account(self) -> None:
        if not self.settings.client_id:
            raise errors.auth(NO_APP)
        if not self.settings.has_user:
            raise errors.auth(READ_ONLY)

    async def write_post(self, title: str, body: str, tags: list[str]) -> PostResult:
        self._require_account()
        name = self.settings.post_subreddit
        if not name:
            raise errors.invalid_input(
                "No subreddit to post in. Set REDDIT_POST_SUBREDDIT to one whose rules allow "
                "this kind of post, then restart the server."
            )
        await self.gate.limiter.pace(write=True)

        async def submit(reddit: asyncpraw.Reddit) -> Submission:
            subreddit = await reddit.subreddit(name)
            # Reddit has no tags; flair is per subreddit, so tags are not sent.
            return await subreddit.submit(title, selftext=body)

        created = await self._run(f"publishing to r/{name}", submit, missing=f"subreddit r/{name}")
        sid = str(vars(created).get("id") or "")
        return PostResult(
            ok=True,
            platform=self.platform,
            action="write_post",
            id=sid or None,
            url=f"{WEB}/r/{name}/comments/{sid}/" if sid else None,
        )

    async def write_comment(self, post_id: str, body: str, parent_id: str | None) -> PostResult:
        self._require_account()
        sid = self._submission_id(post_id)
        cid = self._comment_id(parent_id) if parent_id else None
        await self.gate.limiter.pace(write=True)

        async def reply(reddit: asyncpraw.Reddit) -> Any:
            if cid is None:
                submission = await reddit.submission(sid, fetch=False)
                return await submission.reply(body)
            try:
                parent = await reddit.comment(cid)  # /api/info: does it exist, and where?
            except ClientException:
                raise errors.not_found(
                    f"Reddit has no comment {cid}. Use a comment id from get_comments."
                ) from None
            if vars(parent).get("link_id") != f"t3_{sid}":
                raise errors.not_found(
                    f"Comment {cid} is not under post {sid}. Use a comment id from "
                    f"get_comments(post_id={sid!r})."
                )
            return await parent.reply(body)

        created = await self._run(f"replying to post {sid}", reply, missing=f"post {sid}")
        d = vars(created) if created is not None else {}
        return PostResult(
            ok=True,
            platform=self.platform,
            action="write_comment",
            id=str(d["id"]) if d.get("id") else None,
            url=WEB + str(d["permalink"]) if d.get("permalink") else None,
        )

    async def upvote(self, post_id: str) -> PostResult:
        raise errors.not_supported(UPVOTE_RULE.reason)

    # -- capabilities and validate --------------------------------------------------

    async def mentions(self, since: str | None, limit: int) -> MentionList:
        from gwanjong_reddit.mentions import fetch_mentions

        return await fetch_mentions(self, since, limit)

    def static_capabilities(self) -> Capabilities:
        return Capabilities(
            platform=self.platform,
            configured=self.is_configured(),
            actions={"write_post": POST_RULE, "write_comment": COMMENT_RULE, "upvote": UPVOTE_RULE},
            limits=LIMITS,
            credentials=CREDENTIALS,
        )

    async def account(self) -> str | None:
        if not self.is_configured():
            return None
        if self._account is None:

            async def me(reddit: asyncpraw.Reddit) -> Any:
                return await reddit.user.me()

            user = await self._run("checking the account", me, missing="account")
            name = vars(user).get("name") if user is not None else None
            self._account = str(name) if name else None
        return self._account

    async def validate(
        self, action: str, body: str, title: str = "", post_id: str | None = None
    ) -> Validation:
        result = await super().validate(action, body, title, post_id)
        if action == "write_post" and not self.settings.post_subreddit:
            problem = (
                "No subreddit to post in: set REDDIT_POST_SUBREDDIT to one whose rules allow it."
            )
            return result.model_copy(update={"ok": False, "problems": [*result.problems, problem]})
        return result

    async def rule_for_target(self, action: str, post_id: str, rule: ActionRule) -> ActionRule:
        submission = await self._load(post_id, comment_limit=1)  # missing -> not_found
        d = vars(submission)
        if action == "write_comment" and d.get("locked"):
            return ActionRule(
                allowed="never",
                reason="The thread is locked by its moderators: Reddit takes no new comments "
                "there.",
            )
        if action == "write_comment" and d.get("archived"):
            return ActionRule(
                allowed="never",
                reason="The thread is archived: Reddit closes threads to new comments after six "
                "months.",
            )
        return rule
