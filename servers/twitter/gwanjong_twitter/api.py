"""The official X API v2 through tweepy's AsyncClient: every read, and the only writer."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable
from typing import Any, TypeVar, cast

import aiohttp
import tweepy
from tweepy.asynchronous import AsyncClient
from tweepy.client import Response

from gwanjong_shared.contract import errors
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.contract.untrusted import one_line
from gwanjong_shared.kit.host_gate import HostNotAllowed
from gwanjong_shared.kit.http import (
    edge_block,
    error_for_status,
    no_endpoint,
    retry_after_seconds,
    wait_words,
)
from gwanjong_shared.kit.once import AnswerLost, answer_lost, lost_answer, unreadable_answer
from gwanjong_shared.kit.ratelimit import Limiter, MinInterval, wait_from
from gwanjong_twitter.posts import XPost, expand_links
from gwanjong_twitter.redirect import AIOHTTP_NEVER_LEFT, API_HOSTS, AiohttpGate
from gwanjong_twitter.settings import Settings

log = logging.getLogger(__name__)
T = TypeVar("T")
LABEL = "X"

TWEET_FIELDS = [
    "author_id",
    "conversation_id",
    "created_at",
    "entities",
    "lang",
    "note_tweet",
    "public_metrics",
    "referenced_tweets",
    "reply_settings",
]
EXPANSIONS = ["author_id", "referenced_tweets.id", "referenced_tweets.id.author_id"]
USER_FIELDS = ["username", "name"]
PAGE = 100  # the most recent search returns per request
# Pages read past those a limit needs: X cuts a page from its index hits, then drops what it
# may not show (deleted, withheld, protected since), so a page comes short or empty with a
# next_token. Each is a request (rate limited, billed): bounded, and a proxy may hand the
# same token forever.
SHORT_PAGES = 4


def page_cap(limit: int) -> int:
    return -(-limit // PAGE) + SHORT_PAGES


def _secret(value: Any) -> str | None:
    return value.get_secret_value() if value is not None else None


class ApiReader:
    """Reads and writes through X API v2. Reads use the app's bearer token (or, without one,
    the user context); writes always use OAuth 1.0a user context."""

    def __init__(self, settings: Settings) -> None:
        # At DEBUG tweepy logs every request's headers (bearer token, OAuth header) and oauthlib
        # the signature's inputs (the access token): keep both quieter than that.
        for name in ("tweepy", "oauthlib"):
            logging.getLogger(name).setLevel(max(logging.INFO, logging.getLogger(name).level))
        self.settings = settings
        # Windows per endpoint (X limits each route separately); writes keep an interval.
        self.limiter = Limiter(LABEL, writes=MinInterval(settings.write_interval_s))
        self._session: aiohttp.ClientSession | None = None
        self._client: AsyncClient | None = None
        self._me: tuple[str, str] | None = None  # (id, username)

    # -- lifecycle ------------------------------------------------------------------------

    def user_context(self) -> bool:
        s = self.settings
        return None not in (s.api_key, s.api_secret, s.access_token, s.access_secret)

    def can_read(self) -> bool:
        return self.settings.bearer_token is not None or self.user_context()

    async def open(self) -> AsyncClient:
        if self._client is None:
            s = self.settings
            self._session = aiohttp.ClientSession(
                middlewares=(AiohttpGate(API_HOSTS, s.api_base_url, self.limiter),),
                timeout=aiohttp.ClientTimeout(total=s.timeout_s),
            )
            client = AsyncClient(
                bearer_token=_secret(s.bearer_token),
                consumer_key=_secret(s.api_key),
                consumer_secret=_secret(s.api_secret),
                access_token=_secret(s.access_token),
                access_token_secret=_secret(s.access_secret),
                wait_on_rate_limit=False,  # we report the wait instead of sleeping through a tool call
            )
            # tweepy declares session as None until set; any aiohttp ClientSession is accepted.
            client.session = self._session  # type: ignore[assignment]
            self._client = client
        return self._client

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
        self._session = None
        self._client = None

    # -- error mapping --------------------------------------------------------------------

    async def call(self, what: str, key: str, call: Awaitable[T]) -> T:
        """Run one tweepy call; every failure becomes a PlatformError without SDK text."""
        try:
            self.limiter.check(key)
        except PlatformError:
            close = getattr(call, "close", None)
            if close is not None:
                close()  # the request is never sent: do not leave the coroutine unawaited
            raise
        try:
            return await call
        except PlatformError:
            raise
        except AnswerLost as lost:  # a write's answer was lost: it is never sent again
            raise lost_answer(LABEL, lost, what) from None
        except tweepy.TooManyRequests as exc:
            wait = exc.reset_time - time.time() if exc.reset_time else None
            raise errors.rate_limited(
                f"X is rate limiting {what}. Wait {max(1, round(wait or 60))} seconds before calling again.",
                wait if wait is None else max(wait, 1.0),
            ) from None
        except tweepy.Forbidden as exc:
            raise self._forbidden(exc, what) from None
        except tweepy.Unauthorized:
            raise errors.auth(
                "X refused our credentials (401). Check TWITTER_BEARER_TOKEN and the four OAuth 1.0a "
                "values (TWITTER_API_KEY/SECRET, TWITTER_ACCESS_TOKEN/SECRET) and restart the server."
            ) from None
        except tweepy.NotFound:
            if key != "GET /2/tweets/:id":  # the one read by an id the model gave
                raise no_endpoint(LABEL, f"endpoint for {what}") from None
            raise errors.not_found(
                f"X has no such post ({what}). Check the id: use one from search or trending."
            ) from None
        except tweepy.BadRequest as exc:  # X's reason (a query's syntax), cleaned and bounded
            said = one_line("; ".join(map(str, exc.api_messages)), 300)
            raise errors.invalid_input(
                f"X rejected the request ({what}){': ' + said if said else ''}. Check the id "
                "and the text, then retry."
            ) from None
        except tweepy.TwitterServerError as exc:
            status = getattr(exc.response, "status", 500)
            wait = wait_words(retry_after_seconds(getattr(exc.response, "headers", None) or {}))
            raise errors.unavailable(
                f"X answered with a server error ({status}) while {what}. {wait}, then try again."
            ) from None
        except tweepy.HTTPException as exc:
            raise error_for_status(getattr(exc.response, "status", 0), LABEL, what=what) from None
        except HostNotAllowed as exc:
            raise errors.unavailable(
                f"The server refused to contact an unexpected host ({exc.host}) while {what}; "
                "check TWITTER_API_BASE_URL."
            ) from None
        except aiohttp.ContentTypeError as exc:
            # tweepy parses every error body as JSON; X's edge sends text/plain 429s and HTML
            # 404s. The status and headers still say what happened.
            if key.startswith("POST ") and 200 <= exc.status < 300:
                raise unreadable_answer(LABEL, what) from None  # it may have been written
            raise self._not_json(exc, what, key) from None
        except (TimeoutError, aiohttp.ClientError) as exc:
            # the answer broke off: a write's after it left may have landed (tweepy reads the
            # body after our gate has passed the answer on)
            left = not isinstance(exc, AIOHTTP_NEVER_LEFT)
            if lost := answer_lost(key.split()[0], key, error=exc, left=left):
                raise lost_answer(LABEL, lost, what) from None
            if isinstance(exc, TimeoutError):
                raise errors.timeout(
                    f"X did not answer within {self.settings.timeout_s:g} s while {what}. "
                    "Try again later."
                ) from None
            raise errors.unavailable(
                f"Could not reach X ({type(exc).__name__}) while {what}. Check the network or "
                "TWITTER_API_BASE_URL, then try again."
            ) from None

    async def response(self, what: str, key: str, call: Awaitable[Any]) -> Response:
        """``call`` for tweepy methods that return a Response (tweepy's annotations are a union)."""
        return cast(Response, await self.call(what, key, call))

    @staticmethod
    def _not_json(exc: aiohttp.ContentTypeError, what: str, key: str) -> PlatformError:
        # Mapped by status and headers like any HTTP error, except that a 403 without X's
        # JSON body comes from the edge, not from our credentials.
        status = exc.status
        if status == 403:
            return edge_block(LABEL)
        if 200 <= status < 300:
            return errors.unavailable(
                f"X answered {what} with something that is not JSON. Try again later."
            )
        headers = exc.headers or {}
        # a 5xx's Retry-After says how long it is down; below, the rate limit's wait
        wait = retry_after_seconds(headers) if status >= 500 else wait_from(status, headers)
        item = "such post" if key == "GET /2/tweets/:id" else None  # the one read by an id
        return error_for_status(status, LABEL, retry_after=wait, detail=what, what=item)

    @staticmethod
    def _forbidden(exc: tweepy.Forbidden, what: str) -> PlatformError:
        said = " ".join(str(m) for m in exc.api_messages).lower()
        titles = " ".join(
            str(e.get("title", "")) for e in exc.api_errors if isinstance(e, dict)
        ).lower()
        if "duplicate" in said:
            return errors.invalid_input(
                "X refused this text: our account already posted it (an earlier send of it "
                "landed, even one whose answer was lost). Nothing new was posted; search for the "
                "first rather than sending it again."
            )
        if "too long" in said:
            return errors.invalid_input(
                "X says the text is too long (over 280 weighted characters). Shorten it."
            )
        if "reply to this conversation is not allowed" in said or "mentioned" in said:
            return errors.not_supported(
                "X refused the reply: the post does not mention or quote our account, and since "
                "2026-02-23 a program may only answer posts that summoned it. A person can reply by hand."
            )
        if "unsupported authentication" in titles or "client forbidden" in titles:
            return errors.auth(
                f"X does not accept these credentials for {what} (app tier or auth type). Check the "
                "app's access level and the OAuth 1.0a user tokens."
            )
        return errors.auth(
            f"X refused {what} (403). Check that the app's tier includes this endpoint and that the "
            "OAuth 1.0a tokens belong to our account."
        )

    # -- identity -------------------------------------------------------------------------

    @property
    def known_me(self) -> tuple[str, str] | None:
        """(user id, username) if already read; never asks."""
        return self._me

    async def me(self) -> tuple[str, str] | None:
        """(user id, username) of our account, asked once (GET /2/users/me)."""
        if not self.user_context():
            return None
        if self._me is None:
            client = await self.open()
            resp = await self.response(
                "reading our account", "GET /2/users/me", client.get_me(user_auth=True)
            )
            data = resp.data
            self._me = (str(data.id), str(data.username))
        return self._me

    # -- reads ----------------------------------------------------------------------------

    def read_auth(self) -> bool:
        if not self.can_read():
            raise errors.auth(
                "No X API credentials are set. Put TWITTER_BEARER_TOKEN (reads) and the OAuth 1.0a "
                "values (writes) in the environment and restart the server."
            )
        return self.settings.bearer_token is None  # user context only when there is no bearer

    def posts_of(
        self, data: Any, includes: dict[str, Any], errs: list[dict[str, Any]]
    ) -> tuple[list[XPost], list[XPost]]:
        """(the posts in ``data``, deleted posts named by the expansion errors)."""
        users = {str(u.id): u for u in includes.get("users", [])}
        tweets = {str(t.id): t for t in includes.get("tweets", [])}
        items = data if isinstance(data, list) else ([data] if data is not None else [])
        out = [self._post(t.data, users, tweets) for t in items]
        gone = [
            XPost(id=str(e.get("resource_id") or e.get("value")), deleted=True)
            for e in errs
            if isinstance(e, dict)
            and e.get("title") == "Not Found Error"
            and e.get("parameter") == "referenced_tweets.id"
        ]
        return out, gone

    @staticmethod
    def _post(d: dict[str, Any], users: dict[str, Any], tweets: dict[str, Any]) -> XPost:
        author = users.get(str(d.get("author_id", "")))
        refs = d.get("referenced_tweets") or []
        parent = next((str(r["id"]) for r in refs if r.get("type") == "replied_to"), None)
        quoted_id = next((str(r["id"]) for r in refs if r.get("type") == "quoted"), None)
        quoted = tweets.get(quoted_id) if quoted_id else None
        quoted_author_id = str(quoted.author_id) if quoted is not None and quoted.author_id else ""
        quoted_author = users.get(quoted_author_id)
        entities = d.get("entities") or {}
        note = d.get("note_tweet") or {}
        shown = note.get("entities") or entities  # the entities of the text we show
        tags = [h["tag"] for h in shown.get("hashtags", [])]
        metrics = d.get("public_metrics") or {}
        return XPost(
            id=str(d["id"]),
            text=expand_links(note.get("text") or d.get("text", ""), shown.get("urls", [])),
            author=str(author.username) if author is not None else "",
            author_id=str(d.get("author_id", "")),
            created_at=d.get("created_at"),
            conversation_id=str(d.get("conversation_id", "")),
            parent_id=parent,
            quoted_author=str(quoted_author.username) if quoted_author is not None else "",
            quoted_author_id=quoted_author_id,
            mentions=[m["username"] for m in entities.get("mentions", [])],
            hashtags=tags,
            likes=int(metrics.get("like_count") or 0),
            replies=int(metrics.get("reply_count") or 0),
            reply_settings=str(d.get("reply_settings") or "everyone"),
            raw=d,
        )

    async def get(self, post_id: str) -> XPost:
        client = await self.open()
        resp = await self.response(
            "fetching the post",
            "GET /2/tweets/:id",
            client.get_tweet(
                post_id,
                tweet_fields=TWEET_FIELDS,
                expansions=EXPANSIONS,
                user_fields=USER_FIELDS,
                user_auth=self.read_auth(),
            ),
        )
        if resp.data is None:
            # X answers 200 with {"errors": [{"title": "Not Found Error", ...}]} for a missing post.
            raise errors.not_found(
                f"X has no post {post_id} (deleted, protected or a wrong id). Use an id from search or trending."
            )
        posts, _gone = self.posts_of(resp.data, resp.includes, resp.errors)
        return posts[0]

    async def search(self, query: str, limit: int) -> tuple[list[XPost], bool]:
        """Recent search (the last 7 days), newest first, paging until ``limit`` or
        :func:`page_cap`; and whether pages were left unread (a next_token at the cap)."""
        client = await self.open()
        found: list[XPost] = []
        token: str | None = None
        for _page in range(page_cap(limit)):
            resp = await self.response(
                "searching",
                "GET /2/tweets/search/recent",
                client.search_recent_tweets(
                    query,
                    max_results=max(10, min(PAGE, limit - len(found))),
                    next_token=token,
                    tweet_fields=TWEET_FIELDS,
                    expansions=EXPANSIONS,
                    user_fields=USER_FIELDS,
                    user_auth=self.read_auth(),
                ),
            )
            posts, _gone = self.posts_of(resp.data, resp.includes, resp.errors)
            found += posts
            token = resp.meta.get("next_token")
            if not token or len(found) >= limit:
                return found[:limit], False
        return found[:limit], True

    async def conversation(self, root: XPost, limit: int) -> tuple[list[XPost], bool]:
        """The replies under ``root``: its conversation by ``conversation_id:`` recent search,
        newest pages first until ``limit`` or :func:`page_cap` (and whether pages were left
        unread: a next_token at the cap), then the ancestors those replies need (looked up by
        id, 100 a request) so that every reply can be placed. Deleted ancestors come back as
        placeholders (X names them in the response's errors)."""
        client = await self.open()
        conversation = root.conversation_id or root.id
        posts: dict[str, XPost] = {}
        gone: dict[str, XPost] = {}
        token: str | None = None
        left = True  # pages unread, until one ends the conversation or the limit is met
        for _page in range(page_cap(limit + 1)):
            resp = await self.response(
                "fetching the conversation",
                "GET /2/tweets/search/recent",
                client.search_recent_tweets(
                    f"conversation_id:{conversation}",
                    max_results=PAGE,
                    next_token=token,
                    tweet_fields=TWEET_FIELDS,
                    expansions=EXPANSIONS,
                    user_fields=USER_FIELDS,
                    user_auth=self.read_auth(),
                ),
            )
            page, deleted = self.posts_of(resp.data, resp.includes, resp.errors)
            posts.update((p.id, p) for p in page)
            gone.update((p.id, p) for p in deleted)
            # includes.tweets holds parents of this page, but also the posts they quote, from
            # other conversations: only this conversation's are replies.
            extra, _ = self.posts_of(resp.includes.get("tweets"), resp.includes, [])
            for p in extra:
                if p.conversation_id == conversation:
                    posts.setdefault(p.id, p)
            token = resp.meta.get("next_token")
            if not token or len(posts) >= limit + 1:
                left = False
                break
        await self._ancestors(root, posts, gone)
        replies = [p for p in posts.values() if p.id != root.id] + list(gone.values())
        return replies, left

    async def _ancestors(
        self, root: XPost, posts: dict[str, XPost], gone: dict[str, XPost]
    ) -> None:
        client = await self.open()
        for _round in range(12):  # a chain deeper than this is placed under the root
            missing = sorted(
                {
                    p.parent_id
                    for p in posts.values()
                    if p.parent_id
                    and p.parent_id != root.id
                    and p.parent_id not in posts
                    and p.parent_id not in gone
                }
            )
            if not missing:
                return
            for start in range(0, len(missing), 100):
                chunk = missing[start : start + 100]
                resp = await self.response(
                    "fetching earlier replies",
                    "GET /2/tweets",
                    client.get_tweets(
                        chunk,
                        tweet_fields=TWEET_FIELDS,
                        expansions=EXPANSIONS,
                        user_fields=USER_FIELDS,
                        user_auth=self.read_auth(),
                    ),
                )
                found, _ = self.posts_of(resp.data, resp.includes, resp.errors)
                posts.update((p.id, p) for p in found)
                for tweet_id in chunk:
                    if tweet_id not in posts:
                        gone[tweet_id] = XPost(id=tweet_id, deleted=True)

    async def trends(self, count: int) -> list[str]:
        client = await self.open()
        woeid = self.settings.trends_woeid

        async def fetch() -> Any:
            # tweepy has no wrapper for GET /2/trends/by/woeid/{woeid}: its generic request.
            response = await client.request(
                "GET",
                f"/2/trends/by/woeid/{woeid}",
                params={"max_trends": max(1, min(50, count))},
                user_auth=self.read_auth(),
            )
            return await response.json()

        body = await self.call("reading trends", "GET /2/trends/by/woeid/:id", fetch())
        return [str(t["trend_name"]) for t in (body.get("data") or []) if t.get("trend_name")]

    # -- writes ---------------------------------------------------------------------------

    async def create(self, text: str, reply_to: str | None = None) -> str:
        client = await self.open()
        resp = await self.response(
            "posting" if reply_to is None else "replying",
            "POST /2/tweets",
            client.create_tweet(text=text, in_reply_to_tweet_id=reply_to, user_auth=True),
        )
        return str(resp.data["id"])

    async def like(self, post_id: str) -> None:
        client = await self.open()
        await self.call("liking", "POST /2/users/:id/likes", client.like(post_id, user_auth=True))
