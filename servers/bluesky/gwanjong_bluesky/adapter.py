"""Bluesky through the AT Protocol with the ``atproto`` SDK's ``AsyncClient``.

One client and one session for the life of the server: ``createSession`` runs once (it is
limited to 30 per 5 minutes per account) and the SDK refreshes the access token itself
before it expires. Payloads are parsed by the SDK's strict models, then handled as plain
dicts (``raw`` keeps them).
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, TypeVar
from urllib.parse import quote, urlsplit

import anyio
import httpx
from atproto_client import AsyncClient, models
from atproto_client.client.session import Session, SessionEvent
from atproto_client.exceptions import (
    InvokeTimeoutError,
    LoginRequiredError,
    ModelError,
    NetworkError,
    RateLimitExceededError,
    RequestErrorBase,
)
from atproto_client.models.common import XrpcError
from atproto_client.models.utils import get_model_as_dict
from atproto_client.request import AsyncRequest
from atproto_core.exceptions import AtProtocolError

from gwanjong_bluesky.settings import Settings
from gwanjong_shared import errors
from gwanjong_shared.adapter import PlatformAdapter
from gwanjong_shared.contract import ActionRule, Capabilities, Limit, MentionList, Validation
from gwanjong_shared.errors import PlatformError
from gwanjong_shared.host_gate import GateTransport, HostAllowList, HostNotAllowed
from gwanjong_shared.http import error_for_status
from gwanjong_shared.logs import redact
from gwanjong_shared.models import Comment, Post, PostResult
from gwanjong_shared.ratelimit import Limiter, MinInterval, TokenBucket
from gwanjong_shared.text import graphemes

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_GRAPHEMES = 300  # app.bsky.feed.post text: maxGraphemes
MAX_TEXT_BYTES = 3000  # ... and maxLength, which Lexicon counts in UTF-8 bytes
MAX_TAGS = 8
MAX_TAG_GRAPHEMES = 64
MAX_CHAIN = 25  # how many parts of an author's self-thread get_post joins
SESSION_ATTEMPTS = (25, 300.0)  # stay under createSession's 30 per 5 minutes
REJECTED_COOLDOWN_S = 300.0

THREAD_VIEW = "app.bsky.feed.defs#threadViewPost"
NOT_FOUND = "app.bsky.feed.defs#notFoundPost"
BLOCKED = "app.bsky.feed.defs#blockedPost"
MENTION = "app.bsky.richtext.facet#mention"
TAG = "app.bsky.richtext.facet#tag"
SESSION_GONE = {"ExpiredToken", "InvalidToken"}
AUTH_NAMES = SESSION_GONE | {
    "AuthMissing",
    "AuthenticationRequired",
    "AccountTakedown",
    "AccountDeactivated",
    "Forbidden",
}

_AT_URI = re.compile(
    r"^at://(?P<auth>[^/?#\s]+)/app\.bsky\.feed\.post/(?P<rkey>[A-Za-z0-9._:~-]{1,512})$"
)
_WEB_URL = re.compile(
    r"^https?://(?:www\.)?bsky\.app/profile/(?P<auth>[^/?#\s]+)/post/(?P<rkey>[A-Za-z0-9._:~-]{1,512})/?$"
)
_HANDLE = re.compile(
    r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$"
)

POST_RULE = ActionRule(
    allowed="auto",
    reason="Bluesky welcomes automated accounts that post to their own profile (bsky-docs, "
    "'bots' guide); it asks that such accounts carry the 'bot' self-label.",
)
COMMENT_RULE = ActionRule(
    allowed="summoned",
    reason="Bluesky asks bots to reply only when the user has tagged the bot account: an opt-in "
    "interaction, or it is taken for spam (bsky-docs, 'bots' guide). A program may reply only to "
    "a post that mentions or quotes our account, and never where the author's reply gate "
    "(threadgate) shuts us out.",
)
UPVOTE_RULE = ActionRule(
    allowed="summoned",
    reason="Bluesky counts likes as interactions and asks bots to interact only with users who "
    "tagged the bot account (bsky-docs, 'bots' guide), so a program may like only a post that "
    "mentions or quotes our account.",
)
GATED_RULE = ActionRule(
    allowed="never",
    reason="The author's reply gate (threadgate) does not let our account reply to this thread; "
    "Bluesky would hide the reply, so nobody can post it from this account.",
)
LIMITS: dict[str, Limit] = {
    "body": Limit(max=MAX_GRAPHEMES, unit="graphemes"),
    "comment": Limit(max=MAX_GRAPHEMES, unit="graphemes"),
}


def compose(title: str, body: str) -> str:
    """Bluesky posts have no title: a given title becomes the first paragraph of the text."""
    title = title.strip()
    return f"{title}\n\n{body}" if title else body


def guess_langs(text: str) -> list[str]:
    """The record's ``langs`` (feeds filter on it): the scripts the text is written in."""
    langs = []
    if re.search(r"[A-Za-z]", text):
        langs.append("en")
    if re.search(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]", text):
        langs.append("ko")
    if re.search(r"[\u3040-\u30ff]", text):
        langs.append("ja")
    return langs[:3] or ["en"]


# What `setup` may save for this server (never endpoints: those come from the operator).
CREDENTIALS = ["BLUESKY_HANDLE", "BLUESKY_APP_PASSWORD"]


def limit_key(path: str) -> str:
    """Which of our windows a request counts against: sign-ins, record writes, or reads."""
    method = path.rsplit("/", 1)[-1]
    if method in ("com.atproto.server.createSession", "com.atproto.server.refreshSession"):
        return "session"
    return "write" if method.startswith("com.atproto.repo.") else "read"


def _dig(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _authority(uri: str) -> str:
    return uri.split("/")[2] if uri.startswith("at://") and uri.count("/") >= 2 else ""


def _xrpc_error(exc: RequestErrorBase) -> tuple[int | None, str, str]:
    response = exc.response
    if response is None:
        return None, "", ""
    content = response.content
    if isinstance(content, XrpcError):
        return response.status_code, content.error or "", content.message or ""
    return response.status_code, "", ""


class BlueskyAdapter(PlatformAdapter):
    platform: ClassVar[str] = "bluesky"
    label: ClassVar[str] = "Bluesky"

    def __init__(
        self, settings: Settings, transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        self.settings = settings
        self._inner_transport = transport
        self._client: AsyncClient | None = None
        self._did: str | None = None
        self._handle: str | None = None
        self._login_lock = anyio.Lock()
        self._login_attempts: list[float] = []
        self._generation = 0  # bumped by every sign-in
        self._rejected_at: float | None = None
        self._dids: dict[str, str] = {}  # handle -> DID, for ids given with a handle
        self.limiter = Limiter(
            self.label,
            reads=TokenBucket(settings.requests_per_5min, 300.0),
            writes=(
                TokenBucket(settings.writes_per_hour, 3600.0),
                MinInterval(settings.write_interval_s),
            ),
        )

    # -- client and session ------------------------------------------------------------

    def _allowed_hosts(self) -> list[str]:
        base_host = urlsplit(self.settings.base_url).hostname or ""
        return [base_host, *self.settings.allowed_hosts.split(",")]

    def _new_client(self) -> AsyncClient:
        transport = GateTransport(
            HostAllowList(self._allowed_hosts()),
            self.limiter,
            lambda _method, path: limit_key(path),
            inner=self._inner_transport,
        )
        request = AsyncRequest(timeout=httpx.Timeout(self.settings.timeout_s), transport=transport)
        client = AsyncClient(base_url=self.settings.base_url, request=request)
        client.on_session_change(self._on_session)
        return client

    async def _on_session(self, _event: SessionEvent, session: Session) -> None:
        self._did, self._handle = session.did, session.handle

    async def connect(self) -> None:
        if self._client is None:
            self._client = self._new_client()

    async def close(self) -> None:
        if self._client is not None:
            await self._client.request.close()
            self._client = None

    def is_configured(self) -> bool:
        return bool(self.settings.handle) and self.settings.app_password is not None

    def _account_hint(self) -> str:
        return (
            "Set BLUESKY_HANDLE and BLUESKY_APP_PASSWORD (an app password from Settings > Privacy "
            "and security > App passwords) in the server's environment and restart it."
        )

    async def _session(self, *, stale: int | None = None) -> AsyncClient:
        """The client, signed in once. ``stale``: the sign-in generation a call found dead;
        sign in again unless another call already did."""
        if self._client is None:
            await self.connect()
        assert self._client is not None
        if not self.is_configured():
            return self._client  # unauthenticated: works against a public AppView
        async with self._login_lock:
            if self._did is not None and stale != self._generation:
                return self._client
            now = time.monotonic()
            if self._rejected_at is not None and now - self._rejected_at < REJECTED_COOLDOWN_S:
                raise errors.auth(
                    f"Bluesky refused the handle or app password a moment ago. "
                    f"{self._account_hint()}"
                )
            window = [t for t in self._login_attempts if t > now - SESSION_ATTEMPTS[1]]
            if len(window) >= SESSION_ATTEMPTS[0]:
                wait = window[0] + SESSION_ATTEMPTS[1] - now
                raise errors.rate_limited(
                    f"This server signed in to Bluesky {len(window)} times in 5 minutes; Bluesky "
                    f"allows 30. Wait {max(1, round(wait))} seconds.",
                    wait,
                )
            self.limiter.check("session")
            self._login_attempts = [*window, now]
            self._did = None
            await self.limiter.pace()
            assert self.settings.handle is not None and self.settings.app_password is not None
            try:
                await self._client.login(
                    self.settings.handle,
                    self.settings.app_password.get_secret_value(),
                    fetch_bsky_profile=False,
                )
            except AtProtocolError as exc:
                status, name, _ = (
                    _xrpc_error(exc) if isinstance(exc, RequestErrorBase) else (None, "", "")
                )
                if name == "AuthFactorTokenRequired":
                    raise errors.auth(
                        "Bluesky asks this account for an email sign-in code, which means the "
                        f"main password was given. Use an app password instead. {self._account_hint()}"
                    ) from None
                if status == 401 or name == "AuthenticationRequired":
                    self._rejected_at = time.monotonic()
                    raise errors.auth(
                        f"Bluesky refused the handle or app password ({name or status}). "
                        f"{self._account_hint()}"
                    ) from None
                raise self._error(exc, "signing in", "that account") from None
            except httpx.HTTPError as exc:
                raise self._transport_error(exc, "signing in") from None
            if self._did is None:  # the session callback did not run: treat as a failure
                raise errors.unavailable("Bluesky created no session. Try again in a minute.")
            self._generation += 1
            return self._client

    async def _me(self) -> tuple[str, str]:
        """Our DID and handle (signs in if needed)."""
        await self._session()
        if self._did is None or self._handle is None:
            raise errors.auth(f"No Bluesky account is signed in. {self._account_hint()}")
        return self._did, self._handle

    async def _call(
        self,
        what: str,
        fn: Callable[[AsyncClient], Awaitable[T]],
        *,
        item: str = "that post",
        write: bool = False,
    ) -> T:
        """One SDK call with pacing and error mapping; re-signs in once if the session died."""
        if write and not self.is_configured():
            raise errors.auth(
                f"No Bluesky account is set, so nothing can be posted. {self._account_hint()}"
            )
        if write:
            self.limiter.check("write")
            await self.limiter.pace(write=True)
        stale: int | None = None
        for attempt in (0, 1):
            self.limiter.check("write" if write else "read")
            client = await self._session(stale=stale)
            generation = self._generation
            await self.limiter.pace()
            try:
                return await fn(client)
            except RequestErrorBase as exc:
                _, name, _ = _xrpc_error(exc)
                if attempt == 0 and name in SESSION_GONE and self.is_configured():
                    log.info("bluesky: session no longer valid (%s); signing in again", name)
                    stale = generation
                    continue
                raise self._error(exc, what, item) from None
            except AtProtocolError as exc:
                raise self._error(exc, what, item) from None
            except httpx.HTTPError as exc:
                raise self._transport_error(exc, what) from None
        raise errors.auth(f"Bluesky rejected a fresh session too. {self._account_hint()}")

    # -- errors -----------------------------------------------------------------------

    def _transport_error(self, exc: httpx.HTTPError, what: str) -> PlatformError:
        if isinstance(exc, HostNotAllowed):
            return errors.unavailable(
                f"Refused to contact {exc.host} while {what}: it is neither the host of "
                "BLUESKY_BASE_URL nor in BLUESKY_ALLOWED_HOSTS. Add it there if it is your "
                "account's PDS."
            )
        if isinstance(exc, httpx.TimeoutException):
            return self._timeout(what)
        return errors.unavailable(
            f"Could not reach Bluesky while {what} ({type(exc).__name__}). Check the network and "
            "BLUESKY_BASE_URL, then try again."
        )

    def _timeout(self, what: str) -> PlatformError:
        return errors.timeout(
            f"Bluesky did not answer within {self.settings.timeout_s:g} s while {what}. Try again; "
            "if it keeps happening the service may be down."
        )

    def _error(self, exc: AtProtocolError, what: str, item: str) -> PlatformError:
        """An SDK exception as a contract error, without the SDK's own text."""
        if isinstance(exc, InvokeTimeoutError):
            return self._timeout(what)
        if isinstance(exc, RateLimitExceededError):
            wait = self._retry_after(exc)
            seconds = max(1, math.ceil(wait - 1e-6)) if wait is not None else 60
            return errors.rate_limited(
                f"Bluesky is rate limiting us (policy {exc.policy or 'unknown'}). Wait {seconds} "
                "seconds before calling again.",
                wait,
            )
        if isinstance(exc, LoginRequiredError):
            return errors.auth(
                f"Bluesky needs a signed-in account for this. {self._account_hint()}"
            )
        if isinstance(exc, ModelError):
            return errors.unavailable(
                f"Bluesky sent a reply this server could not read while {what}. Try again later."
            )
        if isinstance(exc, RequestErrorBase):
            status, name, message = _xrpc_error(exc)
            if status is None:  # a transport failure the SDK wrapped
                return errors.unavailable(
                    f"Could not reach Bluesky while {what}. Check the network and BLUESKY_BASE_URL."
                )
            if name == "NotFound" or status == 404:
                return errors.not_found(
                    f"Bluesky has no {item} (it may have been deleted). Check the id: use one from "
                    "search or trending."
                )
            if name in AUTH_NAMES or status in (401, 403):
                return errors.auth(
                    f"Bluesky refused our session ({name or status}). {self._account_hint()}"
                )
            if status == 413:
                return errors.invalid_input("Bluesky says the request is too large. Shorten it.")
            if status == 400:
                detail = redact(f"{name}: {message}" if message else name)[:200]
                return errors.invalid_input(
                    f"Bluesky rejected the request ({detail}). Fix the input and retry."
                )
            if isinstance(exc, NetworkError) or status >= 500:
                return errors.unavailable(
                    f"Bluesky answered with a server error ({status}) while {what}. Try again "
                    "in a minute."
                )
            return error_for_status(status, self.label, detail=name, what=item)
        return errors.unavailable(f"Bluesky failed while {what} ({type(exc).__name__}). Try again.")

    @staticmethod
    def _retry_after(exc: RateLimitExceededError) -> float | None:
        if exc.retry_after is not None:
            return exc.retry_after
        if exc.reset_at is not None:
            return max(0.0, exc.reset_at.timestamp() - time.time())
        return None

    # -- ids and mapping ----------------------------------------------------------------

    async def _uri(self, post_id: str, what: str = "post_id") -> str:
        """An at:// URI with a DID from an at:// URI or a bsky.app link (handles resolved)."""
        text = post_id.strip()
        match = _AT_URI.match(text) or _WEB_URL.match(text)
        if match is None:
            raise errors.invalid_input(
                f"{what} must be a Bluesky post URI (at://did:plc:.../app.bsky.feed.post/...) or a "
                f"bsky.app post link; got {text[:80]!r}. Use an id from search or trending."
            )
        authority, rkey = match["auth"].lower(), match["rkey"]
        if not authority.startswith("did:"):
            if not _HANDLE.match(authority):
                raise errors.invalid_input(
                    f"{authority!r} in {what} is neither a DID nor a handle."
                )
            if authority not in self._dids:
                response = await self._call(
                    "resolving a handle",
                    lambda c: c.resolve_handle(authority),
                    item=f"account {authority}",
                )
                self._dids[authority] = response.did
            authority = self._dids[authority]
        return f"at://{authority}/app.bsky.feed.post/{rkey}"

    @staticmethod
    def _url(view: dict[str, Any]) -> str:
        author = view.get("author") or {}
        handle = author.get("handle") or ""
        who = handle if handle and handle != "handle.invalid" else author.get("did", "")
        return f"https://bsky.app/profile/{quote(who)}/post/{view['uri'].rsplit('/', 1)[1]}"

    @staticmethod
    def _tags(record: dict[str, Any]) -> list[str]:
        found = [
            str(feature.get("tag"))
            for facet in record.get("facets") or []
            for feature in facet.get("features") or []
            if feature.get("$type") == TAG and feature.get("tag")
        ]
        found += [str(t) for t in record.get("tags") or []]
        return list(dict.fromkeys(found))

    def _post(self, view: dict[str, Any], body: str | None = None) -> Post:
        record = view.get("record") or {}
        author = view.get("author") or {}
        return Post(
            id=view["uri"],
            platform=self.platform,
            title="",
            url=self._url(view),
            body=body if body is not None else str(record.get("text") or ""),
            author=str(author.get("handle") or author.get("did") or ""),
            tags=self._tags(record),
            likes=int(view.get("likeCount") or 0),
            comments_count=int(view.get("replyCount") or 0),
            published_at=record.get("createdAt") or view.get("indexedAt"),
            raw=view,
        )

    # -- reads --------------------------------------------------------------------------

    async def get_trending(self, limit: int) -> list[Post]:
        params = models.AppBskyFeedGetFeed.Params(
            feed=self.settings.trending_feed, limit=min(limit, 100)
        )
        response = await self._call(
            "reading the trending feed",
            lambda c: c.app.bsky.feed.get_feed(params),
            item="such feed",
        )
        data = get_model_as_dict(response)
        return [self._post(item["post"]) for item in data.get("feed") or []][:limit]

    async def search(self, query: str, limit: int) -> list[Post]:
        params = models.AppBskyFeedSearchPosts.Params(q=query, limit=min(limit, 100), sort="top")
        response = await self._call("searching", lambda c: c.app.bsky.feed.search_posts(params))
        data = get_model_as_dict(response)
        return [self._post(view) for view in data.get("posts") or []][:limit]

    async def _thread(self, uri: str, depth: int) -> dict[str, Any]:
        response = await self._call(
            "fetching the thread",
            lambda c: c.get_post_thread(uri, depth=depth, parent_height=0),
            item=f"post {uri}",
        )
        data = get_model_as_dict(response)
        node = data.get("thread") or {}
        kind = node.get("$type")
        if kind == BLOCKED:
            raise errors.not_found(
                f"The post {uri} is hidden from us: its author blocks our "
                "account or we block theirs. Pick another post."
            )
        if kind != THREAD_VIEW:
            raise errors.not_found(
                f"Bluesky has no post {uri} (it may have been deleted). Check "
                "the id: use one from search or trending."
            )
        return data

    @staticmethod
    def _continuation(node: dict[str, Any], author: str) -> dict[str, Any] | None:
        """The author's own next part of a self-thread (their earliest direct reply)."""
        own = [
            r
            for r in node.get("replies") or []
            if r.get("$type") == THREAD_VIEW and _dig(r, "post", "author", "did") == author
        ]
        own.sort(key=lambda r: str(_dig(r, "post", "record", "createdAt") or ""))
        return own[0] if own else None

    async def get_post(self, post_id: str) -> Post:
        uri = await self._uri(post_id)
        node = (await self._thread(uri, depth=1))["thread"]
        view = node["post"]
        author = _dig(view, "author", "did")
        texts = [str(_dig(view, "record", "text") or "")]
        # A long Bluesky post is a self-thread: the full body is every part the author chained.
        for _ in range(MAX_CHAIN):
            nxt = self._continuation(node, author)
            if nxt is None:
                break
            texts.append(str(_dig(nxt, "post", "record", "text") or ""))
            node = (await self._thread(nxt["post"]["uri"], depth=1))["thread"]
        return self._post(view, body="\n\n".join(texts))

    async def get_comments(self, post_id: str, limit: int) -> list[Comment]:
        uri = await self._uri(post_id)
        data = await self._thread(uri, depth=self.settings.thread_depth)
        anchor = data["thread"]
        gate = data.get("threadgate") or _dig(anchor, "post", "threadgate") or {}
        hidden = set(_dig(gate, "record", "hiddenReplies") or [])
        author = _dig(anchor, "post", "author", "did")
        chain = [anchor]
        while (
            len(chain) <= MAX_CHAIN and (nxt := self._continuation(chain[-1], author)) is not None
        ):
            chain.append(nxt)
        in_chain = {id(n) for n in chain}
        stack: list[tuple[dict[str, Any], str | None, int]] = []
        for part in reversed(chain):  # replies to any part of the post are top-level comments
            stack.extend(
                (r, None, 0) for r in reversed(part.get("replies") or []) if id(r) not in in_chain
            )
        out: list[Comment] = []
        while stack and len(out) < limit:
            node, parent, depth = stack.pop()
            comment = self._comment(uri, node, parent, depth, hidden)
            if comment is None:
                continue
            out.append(comment)
            children = node.get("replies") or []
            stack.extend((c, comment.id, depth + 1) for c in reversed(children))
        return out

    def _comment(
        self, post_id: str, node: dict[str, Any], parent: str | None, depth: int, hidden: set[str]
    ) -> Comment | None:
        kind = node.get("$type")
        if kind in (NOT_FOUND, BLOCKED):  # deleted or blocked: keeps its place, shows nothing
            return Comment(
                id=str(node.get("uri") or ""),
                platform=self.platform,
                post_id=post_id,
                parent_id=parent,
                depth=depth,
                raw=node,
            )
        if kind != THREAD_VIEW:
            log.info("bluesky: skipped a thread node of type %r", kind)
            return None
        view = node["post"]
        raw = {k: v for k, v in node.items() if k != "replies"}
        if view["uri"] in hidden:  # hidden by the thread's author: keep the place, not the text
            return Comment(
                id=view["uri"],
                platform=self.platform,
                post_id=post_id,
                parent_id=parent,
                depth=depth,
                raw={**raw, "hiddenByAuthor": True},
            )
        record = view.get("record") or {}
        return Comment(
            id=view["uri"],
            platform=self.platform,
            post_id=post_id,
            parent_id=parent,
            author=str(_dig(view, "author", "handle") or ""),
            body=str(record.get("text") or ""),
            likes=int(view.get("likeCount") or 0),
            published_at=record.get("createdAt") or view.get("indexedAt"),
            depth=depth,
            raw=raw,
        )

    async def _views(self, uris: list[str]) -> dict[str, dict[str, Any]]:
        unique = list(dict.fromkeys(uris))
        response = await self._call("fetching posts", lambda c: c.get_posts(unique))
        data = get_model_as_dict(response)
        return {view["uri"]: view for view in data.get("posts") or []}

    async def _view(self, uri: str) -> dict[str, Any]:
        view = (await self._views([uri])).get(uri)
        if view is None:
            raise errors.not_found(
                f"Bluesky has no post {uri} (it may have been deleted). Check "
                "the id: use one from search or trending."
            )
        return view

    # -- policy -------------------------------------------------------------------------

    @staticmethod
    def _summons(view: dict[str, Any], did: str, handle: str) -> bool:
        """True when the post is ours, mentions our account, or quotes one of our posts."""
        if _dig(view, "author", "did") == did:
            return True
        record = view.get("record") or {}
        for facet in record.get("facets") or []:
            for feature in facet.get("features") or []:
                if feature.get("$type") == MENTION and feature.get("did") == did:
                    return True
        pattern = rf"(?<![\w.@-])@{re.escape(handle)}(?![\w-]|\.\w)"
        if re.search(pattern, str(record.get("text") or ""), re.IGNORECASE):
            return True
        embed = record.get("embed") or {}
        quoted = _dig(embed, "record", "uri") or _dig(embed, "record", "record", "uri") or ""
        return _authority(str(quoted)) == did

    @staticmethod
    def _reply_shut(view: dict[str, Any], did: str | None) -> bool:
        if _dig(view, "viewer", "replyDisabled") is True:
            return True
        allow = _dig(view, "threadgate", "record", "allow")
        return allow == [] and _dig(view, "author", "did") != did

    async def rule_for_target(self, action: str, post_id: str, rule: ActionRule) -> ActionRule:
        if not self.is_configured():
            try:  # a public AppView still says whether the target exists
                await self._view(await self._uri(post_id))
            except PlatformError as exc:
                if exc.kind is not errors.ErrorKind.AUTH:
                    raise
            return ActionRule(
                allowed="human",
                reason=f"{rule.reason} No Bluesky account is configured, so this server cannot "
                "tell whether the post summoned us.",
            )
        view = await self._view(await self._uri(post_id))  # a missing target is not_found
        did, handle = await self._me()
        if action == "write_comment" and self._reply_shut(view, did):
            return GATED_RULE
        if rule.allowed != "summoned" or self._summons(view, did, handle):
            return rule
        return ActionRule(
            allowed="human",
            reason=f"{rule.reason} This post does not mention or quote @{handle}, so a person "
            "must decide whether to interact.",
        )

    async def validate(
        self, action: str, body: str, title: str = "", post_id: str | None = None
    ) -> Validation:
        if action == "write_post":  # count exactly the text write_post will send
            body, title = compose(title, body), ""
        result = await super().validate(action, body, title, post_id)
        size = len(body.encode("utf-8"))
        if action != "upvote" and size > MAX_TEXT_BYTES:
            problem = (
                f"The text is {size} bytes in UTF-8; Bluesky allows {MAX_TEXT_BYTES}. Cut at "
                f"least {size - MAX_TEXT_BYTES} bytes (emoji sequences are long)."
            )
            result = result.model_copy(
                update={"ok": False, "problems": [*result.problems, problem]}
            )
        return result

    async def mentions(self, since: str | None, limit: int) -> MentionList:
        from gwanjong_bluesky.mentions import fetch_mentions

        return await fetch_mentions(self, since, limit)

    async def account(self) -> str | None:
        if not self.is_configured():
            return None
        return (await self._me())[1]  # signs in once: tells whether Bluesky is reachable

    def static_capabilities(self) -> Capabilities:
        return Capabilities(
            platform=self.platform,
            configured=self.is_configured(),
            actions={"write_post": POST_RULE, "write_comment": COMMENT_RULE, "upvote": UPVOTE_RULE},
            limits=LIMITS,  # type: ignore[arg-type]  # dict[str, Limit] for dict[LimitName, Limit]
            credentials=CREDENTIALS,
        )

    # -- writes -------------------------------------------------------------------------

    def _langs(self, text: str) -> list[str]:
        fixed = [lang.strip() for lang in self.settings.langs.split(",") if lang.strip()]
        return fixed[:3] or guess_langs(text)

    async def _facets(self, text: str) -> list[models.AppBskyRichtextFacet.Main] | None:
        """Links, #tags and @mentions at UTF-8 byte offsets; mentions carry the resolved DID."""
        facets = await self._call(
            "finding links and mentions", lambda c: c.detect_facets(text), item="such account"
        )
        return facets or None

    async def write_post(self, title: str, body: str, tags: list[str]) -> PostResult:
        text = compose(title, body)
        clean = [t.strip().lstrip("#") for t in tags if t.strip().lstrip("#")]
        if len(clean) > MAX_TAGS or any(graphemes(t) > MAX_TAG_GRAPHEMES for t in clean):
            raise errors.invalid_input(
                f"Bluesky takes at most {MAX_TAGS} tags of up to {MAX_TAG_GRAPHEMES} characters; "
                f"got {tags!r}. Fix the tags and retry."
            )
        if not self.is_configured():
            raise errors.auth(
                f"No Bluesky account is set, so nothing can be posted. {self._account_hint()}"
            )
        did, handle = await self._me()
        facets = await self._facets(text)
        record = models.AppBskyFeedPost.Record(
            created_at=self._now(),
            text=text,
            facets=facets,
            langs=self._langs(text),
            tags=clean or None,
        )
        created = await self._call(
            "publishing", lambda c: c.app.bsky.feed.post.create(did, record), write=True
        )
        return PostResult(
            ok=True,
            platform=self.platform,
            action="write_post",
            id=created.uri,
            url=self._url({"uri": created.uri, "author": {"handle": handle, "did": did}}),
        )

    async def write_comment(self, post_id: str, body: str, parent_id: str | None) -> PostResult:
        did, handle = await self._me()
        uri = await self._uri(post_id)
        parent_uri = await self._uri(parent_id, "parent_id") if parent_id else uri
        views = await self._views([uri, parent_uri])
        target, parent = views.get(uri), views.get(parent_uri)
        if target is None or parent is None:
            missing = uri if target is None else parent_uri
            raise errors.not_found(
                f"Bluesky has no post {missing} (it may have been deleted). "
                "Check the id: use one from get_comments."
            )
        root = _dig(target, "record", "reply", "root") or {
            "uri": target["uri"],
            "cid": target["cid"],
        }
        if parent_uri != uri:
            parent_root = _dig(parent, "record", "reply", "root", "uri") or parent["uri"]
            if parent_root != root["uri"]:
                raise errors.invalid_input(
                    f"parent_id {parent_uri} is not in the thread of post_id {uri}. Use a comment "
                    "id from get_comments(post_id)."
                )
            replied_to = _authority(str(_dig(parent, "record", "reply", "parent", "uri") or ""))
            if not self._summons(parent, did, handle) and replied_to != did:
                raise errors.not_supported(
                    f"{COMMENT_RULE.reason} The comment {parent_uri} neither mentions "
                    f"@{handle} nor "
                    "replies to us, so a person must decide whether to answer it."
                )
        if self._reply_shut(parent, did):
            raise errors.not_supported(GATED_RULE.reason)
        facets = await self._facets(body)
        reply = models.AppBskyFeedPost.ReplyRef(
            root=models.ComAtprotoRepoStrongRef.Main(uri=root["uri"], cid=root["cid"]),
            parent=models.ComAtprotoRepoStrongRef.Main(uri=parent["uri"], cid=parent["cid"]),
        )
        record = models.AppBskyFeedPost.Record(
            created_at=self._now(),
            text=body,
            facets=facets,
            langs=self._langs(body),
            reply=reply,
        )
        created = await self._call(
            "replying", lambda c: c.app.bsky.feed.post.create(did, record), write=True
        )
        return PostResult(
            ok=True,
            platform=self.platform,
            action="write_comment",
            id=created.uri,
            url=self._url({"uri": created.uri, "author": {"handle": handle, "did": did}}),
        )

    async def upvote(self, post_id: str) -> PostResult:
        did, _ = await self._me()
        view = await self._view(await self._uri(post_id))
        url = self._url(view)
        existing = _dig(view, "viewer", "like")
        if existing:  # already liked: a second like record would only be noise
            return PostResult(
                ok=True, platform=self.platform, action="upvote", id=str(existing), url=url
            )
        record = models.AppBskyFeedLike.Record(
            created_at=self._now(),
            subject=models.ComAtprotoRepoStrongRef.Main(uri=view["uri"], cid=view["cid"]),
        )
        created = await self._call(
            "liking", lambda c: c.app.bsky.feed.like.create(did, record), write=True
        )
        return PostResult(ok=True, platform=self.platform, action="upvote", id=created.uri, url=url)

    def _now(self) -> str:
        assert self._client is not None
        return self._client.get_current_time_iso()
