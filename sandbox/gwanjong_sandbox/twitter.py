"""X API v2 emulator (what tweepy's AsyncClient talks to), plus the X world both X emulators share.

The world renders the seeded corpus as X posts: each thread is a post (title, blank line, body,
hashtags), each comment a reply whose ``referenced_tweets`` point at its parent. Ids are
64-bit snowflakes derived from the creation time, as on X. The web GraphQL emulator for
twikit (``gwanjong_sandbox.twikit``) renders the same world, so a reply written through the
official API shows up in a web read and both answer for the same ids.

Wire facts followed here (platform-wire.md §4a, payloads/twitter/):

- tweets carry ``id``, ``text``, ``edit_history_tweet_ids`` and only the requested fields;
  ``created_at`` is ``2026-11-27T09:00:00.000Z``; ids are strings;
- a missing or deleted tweet is **HTTP 200** with ``{"errors": [{"title": "Not Found Error", ...}]}``;
  a deleted parent named by an expansion comes back the same way, next to ``data``;
- an empty search is ``{"meta": {"result_count": 0}}`` (no ``data``); ``max_results`` must be
  10-100; ``next_token`` only when there is another page;
- errors are problem objects (``application/problem+json``) and every answer carries
  ``x-rate-limit-limit/remaining/reset`` (reset in epoch seconds), per endpoint and 15-min window;
- writes need OAuth 1.0a user context (the HMAC-SHA1 signature is checked over the original
  ``https://api.twitter.com`` URL); app-only bearer tokens are refused for them;
- since 2026-02-23 a programmatic reply is refused (403) unless the target post mentions or
  quotes the replying account; duplicate text and text over 280 weighted characters are 403.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import re
import time
import unicodedata
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote, unquote

import anyio
import regex
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from gwanjong_sandbox.corpus import BASE_TIME, Node, build_corpus, walk
from gwanjong_sandbox.state import SandboxState

# -- the sandbox's credentials and our own account ------------------------------------

ME_ID = "1790000000000000001"
ME = "gwanjong_bot"
BEARER = "sandbox-twitter-bearer"
API_KEY = "sandbox-twitter-api-key"
API_SECRET = "sandbox-twitter-api-secret"
ACCESS_TOKEN = f"{ME_ID}-sandboxtwitteraccesstoken"
ACCESS_SECRET = "sandbox-twitter-access-secret"
API_HOSTS = ("api.twitter.com", "api.x.com")
MISSING_ID = "1999999999999999999"
# The account twikit reads as (logged in on the web), and the session a saved cookies file holds.
READER_ID = "1790000000000000002"
READER = "gwanjong_reader"
WEB_AUTH_TOKEN = "sandbox-twikit-auth-token"
PROBLEM = "application/problem+json"

TWEET_FIELDS = {
    "attachments",
    "author_id",
    "card_uri",
    "context_annotations",
    "conversation_id",
    "created_at",
    "edit_controls",
    "edit_history_tweet_ids",
    "entities",
    "geo",
    "id",
    "in_reply_to_user_id",
    "lang",
    "non_public_metrics",
    "note_tweet",
    "organic_metrics",
    "possibly_sensitive",
    "promoted_metrics",
    "public_metrics",
    "referenced_tweets",
    "reply_settings",
    "scopes",
    "source",
    "text",
    "withheld",
    "display_text_range",
    "article",
    "media_metadata",
}
USER_FIELDS = {
    "affiliation",
    "connection_status",
    "created_at",
    "description",
    "entities",
    "id",
    "location",
    "most_recent_tweet_id",
    "name",
    "pinned_tweet_id",
    "profile_banner_url",
    "profile_image_url",
    "protected",
    "public_metrics",
    "receives_your_dm",
    "subscription_type",
    "url",
    "username",
    "verified",
    "verified_type",
    "withheld",
}
EXPANSIONS = {
    "author_id",
    "referenced_tweets.id",
    "referenced_tweets.id.author_id",
    "in_reply_to_user_id",
    "entities.mentions.username",
    "attachments.media_keys",
    "attachments.poll_ids",
    "geo.place_id",
    "edit_history_tweet_ids",
}

# Per-endpoint limits per 15-minute window (x-api/fundamentals/rate-limits.mdx).
LIMITS = {
    "GET /2/tweets/:id": 450,
    "GET /2/tweets": 450,
    "GET /2/tweets/search/recent": 450,
    "GET /2/trends/by/woeid/:id": 75,
    "GET /2/users/me": 75,
    "POST /2/tweets": 100,
    "POST /2/users/:id/likes": 50,
}
WINDOW_S = 900

_EPOCH_MS = 1288834974657  # X's snowflake epoch
_MENTION = re.compile(r"(?<![\w@])@(\w{1,15})")
_HASHTAG = re.compile(r"(?<![\w#&])#(\w*[^\W\d_]\w*)")
_URL = re.compile(r"https?://[^\s]+")
_WORD = re.compile(r"\w+")


def snowflake(when: datetime, seq: int) -> str:
    ms = int(when.timestamp() * 1000) - _EPOCH_MS
    return str((ms << 22) | ((seq % 4096) << 0) | (1 << 17))


def iso_ms(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


_GRAPHEME = regex.compile(r"\X")
_EMOJI_PART = regex.compile(
    r"[\p{Extended_Pictographic}\p{Emoji_Presentation}\p{Regional_Indicator}\u20E3]"
)


@functools.lru_cache(maxsize=8192)  # the same corpus texts are rendered on every request
def weighted_length(text: str) -> int:
    """X's weighting (twitter-text v3), compactly: a URL counts 23, an emoji (one grapheme,
    ZWJ sequences included) 2, code points up to U+10FF and a few punctuation ranges 1, the rest
    2. Enough for the emulator to refuse what X refuses; the server has the exact counter."""
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n"))
    total = 0
    for part in re.split(r"(https?://\S+)", text):
        if _URL.fullmatch(part):
            total += 23
            continue
        for cluster in _GRAPHEME.findall(part):
            if _EMOJI_PART.search(cluster) and not (len(cluster) == 1 and ord(cluster) <= 0xFF):
                total += 2
                continue
            for ch in cluster:
                cp = ord(ch)
                light = cp <= 4351 or 8192 <= cp <= 8205 or 8208 <= cp <= 8223 or 8242 <= cp <= 8247
                total += 1 if light else 2
    return total


@functools.lru_cache(maxsize=4096)
def truncate_weighted(text: str, limit: int) -> str:
    out = ""
    for ch in text:
        if weighted_length(out + ch) > limit:
            break
        out += ch
    return out.rstrip() + "…"


# -- the world both X emulators render ------------------------------------------------


@dataclass
class XUser:
    id: str
    username: str
    name: str
    created: datetime


@dataclass
class XTweet:
    id: str
    author_id: str
    text: str
    created: datetime
    conversation_id: str
    reply_to: str | None = None
    reply_to_user: str | None = None
    quoted: str | None = None
    likes: int = 0
    retweets: int = 0
    deleted: bool = False
    lang: str = "en"
    reply_settings: str = "everyone"
    liked_by: set[str] = field(default_factory=set)

    def mentions(self) -> list[tuple[int, int, str]]:
        return [(m.start(), m.end(), m.group(1)) for m in _MENTION.finditer(self.text)]

    def hashtags(self) -> list[tuple[int, int, str]]:
        return [(m.start(), m.end(), m.group(1)) for m in _HASHTAG.finditer(self.text)]

    def urls(self) -> list[tuple[int, int, str]]:
        return [(m.start(), m.end(), m.group(0)) for m in _URL.finditer(self.text)]


class XWorld:
    """Users and posts, seeded from the corpus; ``reset`` puts the seed back."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.users: dict[str, XUser] = {}
        self._by_name: dict[str, XUser] = {}
        self.tweets: dict[str, XTweet] = {}
        self.thread_ids: dict[str, str] = {}
        self.sessions: dict[str, str] = {}  # web auth_token -> user id (twikit logins)
        self._seq = 0
        self.user(ME, name="Gwanjong Bot", uid=ME_ID)
        self.user(READER, name="Gwanjong Reader", uid=READER_ID)
        self.sessions[WEB_AUTH_TOKEN] = READER_ID
        for thread in build_corpus(ME):
            author = self.user(thread.author)
            text = f"{thread.title}\n\n{thread.body.replace('{me}', '@' + ME)}"
            text += "\n\n" + " ".join(f"#{t}" for t in thread.tags)
            root = self._add(
                author.id,
                text,
                thread.created,
                likes=thread.likes,
                lang="ko" if thread.key == "korean-dev" else "en",
            )
            root.deleted = thread.deleted
            self.thread_ids[thread.key] = root.id
            ids: dict[str, str] = {}
            for node, _depth, parent in walk(thread.comments):
                parent_id = ids[parent.key] if parent is not None else root.id
                ids[node.key] = self._reply(node, parent_id, thread.created).id
        # X-only seed: one post of ours, and someone quoting it (a summons by quote).
        mine = self._add(
            ME_ID,
            "Shipping notes: one gateway, five tools, and every write checked "
            "against the platform's rules first.",
            BASE_TIME - timedelta(hours=70),
            likes=9,
        )
        self.thread_ids["x-my-post"] = mine.id
        quoter = self.user("quote_quinn")
        quote_ = self._add(
            quoter.id,
            "This is the part people skip: rules before writes.",
            BASE_TIME - timedelta(hours=6),
            likes=4,
        )
        quote_.quoted = mine.id
        self.thread_ids["x-quotes-me"] = quote_.id
        # A thread where one reply quotes a post from another conversation: the quoted post
        # rides along in includes.tweets of the conversation search, but is no reply.
        asker = self.user("lint_lena")
        asked = self._add(
            asker.id,
            "Migrated our linter config to the new format today. Took an hour, mostly renames.",
            BASE_TIME - timedelta(hours=5),
            likes=3,
        )
        self.thread_ids["x-quoting-thread"] = asked.id
        self._add(
            self.user("ops_omar").id,
            "Same here, the rename table in the changelog saved me.",
            BASE_TIME - timedelta(hours=4, minutes=50),
            reply_to=asked.id,
        )
        quoting = self._add(
            self.user("quote_quinn").id,
            "Related, on checking rules before acting:",
            BASE_TIME - timedelta(hours=4, minutes=40),
            reply_to=asked.id,
        )
        quoting.quoted = mine.id

    def user(self, username: str, name: str = "", uid: str | None = None) -> XUser:
        known = self._by_name.get(username.lower())
        if known is not None:
            return known
        created = datetime(2015, 1, 1, tzinfo=UTC) + timedelta(
            days=zlib.crc32(username.encode()) % 3000
        )
        uid = uid or str(4_300_000_000 + zlib.crc32(username.encode()) % 100_000_000)
        user = XUser(uid, username, name or username.replace("_", " ").title(), created)
        self.users[uid] = user
        self._by_name[username.lower()] = user
        return user

    def by_username(self, username: str) -> XUser | None:
        return self._by_name.get(username.lower())

    def _add(
        self,
        author_id: str,
        text: str,
        created: datetime,
        *,
        reply_to: str | None = None,
        likes: int = 0,
        lang: str = "en",
    ) -> XTweet:
        self._seq += 1
        tid = snowflake(created, self._seq)
        parent = self.tweets.get(reply_to) if reply_to else None
        tweet = XTweet(
            id=tid,
            author_id=author_id,
            text=text,
            created=created,
            conversation_id=parent.conversation_id if parent else tid,
            reply_to=reply_to,
            reply_to_user=parent.author_id if parent else None,
            likes=likes,
            lang=lang,
        )
        self.tweets[tid] = tweet
        return tweet

    def _reply(self, node: Node, parent_id: str, start: datetime) -> XTweet:
        author = self.user(node.author)
        body = node.body.replace("{me}", "@" + ME)
        lang = "ko" if re.search(r"[\uac00-\ud7a3]", body) else "en"
        tweet = self._add(
            author.id,
            body,
            start + timedelta(minutes=node.minutes, seconds=self._seq % 60),
            reply_to=parent_id,
            likes=node.likes,
            lang=lang,
        )
        tweet.deleted = node.deleted
        return tweet

    def post(
        self, author_id: str, text: str, reply_to: str | None = None, quoted: str | None = None
    ) -> XTweet:
        tweet = self._add(author_id, text, datetime.now(UTC), reply_to=reply_to)
        tweet.quoted = quoted
        return tweet

    def live(self, tweet_id: str) -> XTweet | None:
        tweet = self.tweets.get(tweet_id)
        return None if tweet is None or tweet.deleted else tweet

    def reply_count(self, tweet_id: str) -> int:
        return sum(1 for t in self.tweets.values() if t.reply_to == tweet_id and not t.deleted)

    def quote_count(self, tweet_id: str) -> int:
        return sum(1 for t in self.tweets.values() if t.quoted == tweet_id and not t.deleted)

    def summons(self, tweet: XTweet, user_id: str) -> bool:
        """Does this post mention the user or quote one of their posts (X's 2026 reply rule)?"""
        user = self.users.get(user_id)
        if user is None:
            return False
        if any(name.lower() == user.username.lower() for _s, _e, name in tweet.mentions()):
            return True
        quoted = self.tweets.get(tweet.quoted) if tweet.quoted else None
        return quoted is not None and quoted.author_id == user_id

    def search(self, query: str) -> list[XTweet]:
        """Recent search, newest first. Raises ValueError for a query X would reject."""
        matcher = parse_query(query)
        hits = [t for t in self.tweets.values() if not t.deleted and matcher(t, self)]
        return sorted(hits, key=lambda t: int(t.id), reverse=True)


_WORLDS: dict[int, tuple[SandboxState, XWorld, object]] = {}


def world_for(state: SandboxState, emulator: object) -> tuple[XWorld, bool]:
    """The one X world per sandbox, shared by the v2 and the web emulator, and whether
    ``emulator`` owns it (the owner resets it: once per sandbox reset, not once per emulator)."""
    held = _WORLDS.get(id(state))
    if held is None or held[0] is not state:
        held = (state, XWorld(), emulator)
        _WORLDS[id(state)] = held
    return held[1], held[2] is emulator


# -- X search operators (the subset the servers and tests use) ---------------------------

_TOKEN = re.compile(r'\s*(\(|\)|-?"[^"]*"|-?[^\s()]+)')


def parse_query(query: str):  # type: ignore[no-untyped-def]
    tokens = [m.group(1) for m in _TOKEN.finditer(query) if m.group(1).strip()]
    if not tokens:
        raise ValueError("empty query")
    pos = 0

    def or_expr():  # type: ignore[no-untyped-def]
        nonlocal pos
        parts = [and_expr()]
        while pos < len(tokens) and tokens[pos] == "OR":
            pos += 1
            parts.append(and_expr())
        return lambda t, w: any(p(t, w) for p in parts)

    def and_expr():  # type: ignore[no-untyped-def]
        nonlocal pos
        parts = []
        while pos < len(tokens) and tokens[pos] not in (")", "OR"):
            parts.append(unary())
        if not parts:
            raise ValueError("dangling operator")
        return lambda t, w: all(p(t, w) for p in parts)

    def unary():  # type: ignore[no-untyped-def]
        nonlocal pos
        token = tokens[pos]
        if token == "(":
            pos += 1
            inner = or_expr()
            if pos >= len(tokens) or tokens[pos] != ")":
                raise ValueError("unbalanced parentheses")
            pos += 1
            return inner
        pos += 1
        if token.startswith("-") and len(token) > 1:
            positive = term(token[1:])
            return lambda t, w: not positive(t, w)
        return term(token)

    matcher = or_expr()
    if pos != len(tokens):
        raise ValueError("unbalanced parentheses")
    return matcher


@functools.lru_cache(maxsize=8192)
def _words(text: str) -> frozenset[str]:
    # Searched texts repeat across requests: tokenise each once (keeps a search ~1 ms).
    return frozenset(w.lower() for w in _WORD.findall(text))


def _has_word(text: str, word: str) -> bool:
    word = word.lower()
    if not word.isascii():  # CJK has no spaces: X matches inside words
        return word in text.lower()
    return word in _words(text)


def term(token: str):  # type: ignore[no-untyped-def]
    if token.startswith('"') and token.endswith('"') and len(token) >= 2:
        phrase = token[1:-1].lower()
        return lambda t, w: phrase in t.text.lower()
    key, _, value = token.partition(":")
    if key == "filter" and value:  # the web search spelling (filter:replies) of is:reply
        key = "is"
        value = {"replies": "reply", "quote": "quote", "nativeretweets": "retweet"}.get(
            value, value
        )
    if value and key in (
        "from",
        "to",
        "conversation_id",
        "is",
        "lang",
        "in_reply_to_tweet_id",
        "quotes_of_tweet_id",
    ):
        if key == "from":
            return lambda t, w: w.users[t.author_id].username.lower() == value.lower().lstrip("@")
        if key == "to":
            return lambda t, w: (
                bool(t.reply_to_user) and w.users[t.reply_to_user].username.lower() == value.lower()
            )
        if key == "conversation_id":
            return lambda t, w: t.conversation_id == value
        if key == "in_reply_to_tweet_id":
            return lambda t, w: t.reply_to == value
        if key == "quotes_of_tweet_id":
            return lambda t, w: t.quoted == value
        if key == "lang":
            return lambda t, w: t.lang == value
        if value == "reply":
            return lambda t, w: t.reply_to is not None
        if value == "quote":
            return lambda t, w: t.quoted is not None
        if value in ("retweet", "verified", "nullcast"):
            return lambda t, w: False
        raise ValueError(f"unknown operator is:{value}")
    if token.startswith("#") and len(token) > 1:
        tag = token[1:].lower()
        return lambda t, w: any(h.lower() == tag for _s, _e, h in t.hashtags())
    if token.startswith("@") and len(token) > 1:
        name = token[1:].lower()
        return lambda t, w: any(m.lower() == name for _s, _e, m in t.mentions())
    return lambda t, w: _has_word(t.text, token)


# -- OAuth 1.0a ---------------------------------------------------------------------------


def _pct(value: str) -> str:
    return quote(value, safe="~")


def oauth1_params(header: str) -> dict[str, str] | None:
    if not header.startswith("OAuth "):
        return None
    params: dict[str, str] = {}
    for part in header[6:].split(","):
        key, _, value = part.strip().partition("=")
        params[unquote(key)] = unquote(value.strip('"'))
    return params


def oauth1_valid(request: Request, params: dict[str, str]) -> bool:
    """Check an HMAC-SHA1 signature the way X does, over the original https URL."""
    if params.get("oauth_consumer_key") != API_KEY or params.get("oauth_token") != ACCESS_TOKEN:
        return False
    if params.get("oauth_signature_method") != "HMAC-SHA1":
        return False
    host = request.headers.get("x-sandbox-original-host") or request.headers.get("host", "")
    host = host.split(":")[0].lower()
    if host not in API_HOSTS:
        host = "api.twitter.com"
    items = [(k, v) for k, v in request.query_params.multi_items()]
    items += [(k, v) for k, v in params.items() if k not in ("oauth_signature", "realm")]
    normalized = "&".join(f"{k}={v}" for k, v in sorted((_pct(k), _pct(v)) for k, v in items))
    base = "&".join(
        [request.method.upper(), _pct(f"https://{host}{request.url.path}"), _pct(normalized)]
    )
    key = f"{_pct(API_SECRET)}&{_pct(ACCESS_SECRET)}".encode()
    expected = base64.b64encode(hmac.new(key, base.encode(), hashlib.sha1).digest()).decode()
    return hmac.compare_digest(expected, params.get("oauth_signature", ""))


# -- responses ----------------------------------------------------------------------------


def problem(
    status: int,
    title: str,
    detail: str,
    type_: str = "about:blank",
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    body = {"title": title, "detail": detail, "type": type_, "status": status, **extra}
    return JSONResponse(body, status_code=status, headers=headers, media_type=PROBLEM)


class RateLimitedResponse(JSONResponse):
    """A 429 whose ``x-rate-limit-reset`` is ``retry_after`` whole seconds from when it is sent.

    The reset is an epoch second, so the client's ``reset - now`` is exact only when it reads
    the answer within the same second it was stamped: answers are not stamped in the last
    tenth of a second.
    """

    def __init__(
        self, body: dict[str, Any], retry_after: int, limit: int, media_type: str = PROBLEM
    ) -> None:
        super().__init__(body, status_code=429, media_type=media_type)
        self.retry_after = retry_after
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        frac = time.time() % 1
        if frac > 0.9:
            await anyio.sleep(1.01 - frac)
        now = time.time()
        self.headers["x-rate-limit-limit"] = str(self.limit)
        self.headers["x-rate-limit-remaining"] = "0"
        self.headers["x-rate-limit-reset"] = str(int(now) + self.retry_after)
        await super().__call__(scope, receive, send)


def too_many(retry_after: int, limit: int = 450) -> RateLimitedResponse:
    return RateLimitedResponse(
        {
            "title": "Too Many Requests",
            "detail": "Too Many Requests",
            "type": "about:blank",
            "status": 429,
        },
        retry_after,
        limit,
    )


def invalid_request(parameter: str, value: str, message: str) -> JSONResponse:
    return JSONResponse(
        {
            "errors": [{"parameters": {parameter: [value]}, "message": message}],
            "title": "Invalid Request",
            "detail": "One or more parameters to your request was invalid.",
            "type": "https://api.twitter.com/2/problems/invalid-request",
        },
        status_code=400,
        media_type=PROBLEM,
    )


def not_found_error(tweet_id: str, parameter: str = "id") -> dict[str, Any]:
    return {
        "value": tweet_id,
        "detail": f"Could not find tweet with {parameter}: [{tweet_id}].",
        "title": "Not Found Error",
        "resource_type": "tweet",
        "parameter": parameter,
        "resource_id": tweet_id,
        "type": "https://api.twitter.com/2/problems/resource-not-found",
    }


def _route_key(method: str, path: str) -> str:
    path = path.rstrip("/")
    return (
        f"{method} /2" + re.sub(r"/\d+(?=/|$)", "/:id", path[2:])
        if path.startswith("/2/")
        else f"{method} {path}"
    )


@dataclass
class _Bucket:
    limit: int
    used: int = 0
    reset: int = 0


class TwitterEmulator:
    platform: str = "twitter"
    prefixes: tuple[str, ...] = ("/2/",)
    # api.x.com also serves v2 on the real X, but here it belongs to the web emulator (twikit
    # logs in there); tweepy always calls api.twitter.com.
    hosts: tuple[str, ...] = ("api.twitter.com",)

    def __init__(self, state: SandboxState) -> None:
        self.state = state
        self.world, self._owner = world_for(state, self)
        self.reset()

    def reset(self) -> None:
        if self._owner:
            self.world.reset()
        self.buckets: dict[str, _Bucket] = {}

    def ids(self) -> dict[str, str]:
        return {**self.world.thread_ids, "missing": MISSING_ID}

    def demo_env(self, base_url: str) -> dict[str, str]:
        return {
            "TWITTER_API_BASE_URL": base_url,
            "TWITTER_BEARER_TOKEN": BEARER,
            "TWITTER_API_KEY": API_KEY,
            "TWITTER_API_SECRET": API_SECRET,
            "TWITTER_ACCESS_TOKEN": ACCESS_TOKEN,
            "TWITTER_ACCESS_SECRET": ACCESS_SECRET,
        }

    def error_response(self, status: int, retry_after: int | None) -> Response:
        if status == 429:
            return too_many(retry_after if retry_after is not None else WINDOW_S)
        titles = {
            400: "Invalid Request",
            401: "Unauthorized",
            403: "Forbidden",
            404: "Not Found",
            500: "Internal Server Error",
            502: "Bad Gateway",
            503: "Service Unavailable",
        }
        title = titles.get(status, "Error")
        return problem(status, title, title)

    # -- auth and limits ------------------------------------------------------------------

    def _caller(
        self, request: Request, *, user_context: bool
    ) -> tuple[str | None, Response | None]:
        """(user id or "app", None) when authorised, else (None, error response)."""
        header = request.headers.get("authorization", "")
        if header.startswith("Bearer "):
            if header[7:] != BEARER:
                return None, problem(401, "Unauthorized", "Unauthorized")
            if user_context:
                return None, problem(
                    403,
                    "Unsupported Authentication",
                    "Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.  "
                    "Supported authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context].",
                    "https://api.twitter.com/2/problems/unsupported-authentication",
                )
            return "app", None
        params = oauth1_params(header)
        if params is None or not oauth1_valid(request, params):
            return None, problem(401, "Unauthorized", "Unauthorized")
        return ME_ID, None

    def _limit(self, request: Request) -> tuple[_Bucket, Response | None]:
        key = _route_key(request.method, request.url.path)
        now = int(time.time())
        bucket = self.buckets.get(key)
        if bucket is None or now >= bucket.reset:
            bucket = self.buckets[key] = _Bucket(LIMITS.get(key, 300), 0, now + WINDOW_S)
        if bucket.used >= bucket.limit:
            return bucket, too_many(max(1, bucket.reset - now), bucket.limit)
        bucket.used += 1
        return bucket, None

    @staticmethod
    def _stamp(response: Response, bucket: _Bucket) -> Response:
        response.headers["x-rate-limit-limit"] = str(bucket.limit)
        response.headers["x-rate-limit-remaining"] = str(max(0, bucket.limit - bucket.used))
        response.headers["x-rate-limit-reset"] = str(bucket.reset)
        return response

    def _guard(
        self, request: Request, *, user_context: bool = False
    ) -> tuple[str | None, _Bucket | None, Response | None]:
        caller, error = self._caller(request, user_context=user_context)
        if error is not None:
            return None, None, error
        bucket, limited = self._limit(request)
        if limited is not None:
            return None, None, limited
        return caller, bucket, None

    # -- rendering ------------------------------------------------------------------------

    @staticmethod
    def _fields(request: Request, name: str, allowed: set[str]) -> tuple[set[str], Response | None]:
        raw = request.query_params.get(name)
        if raw is None:
            return set(), None
        values = {v for v in raw.split(",") if v}
        bad = sorted(values - allowed)
        if bad:
            return set(), invalid_request(
                name,
                bad[0],
                f"The `{name}` query parameter value [{bad[0]}] is not one of "
                f"[{','.join(sorted(allowed))}]",
            )
        return values, None

    def render_tweet(self, t: XTweet, fields: set[str]) -> dict[str, Any]:
        w = self.world
        long_post = weighted_length(t.text) > 280
        out: dict[str, Any] = {
            "id": t.id,
            "text": truncate_weighted(t.text, 275) if long_post else t.text,
            "edit_history_tweet_ids": [t.id],
        }
        if "author_id" in fields:
            out["author_id"] = t.author_id
        if "conversation_id" in fields:
            out["conversation_id"] = t.conversation_id
        if "created_at" in fields:
            out["created_at"] = iso_ms(t.created)
        if "lang" in fields:
            out["lang"] = t.lang
        if "reply_settings" in fields:
            out["reply_settings"] = t.reply_settings
        if "possibly_sensitive" in fields:
            out["possibly_sensitive"] = False
        if "public_metrics" in fields:
            out["public_metrics"] = {
                "retweet_count": t.retweets,
                "reply_count": w.reply_count(t.id),
                "like_count": t.likes,
                "quote_count": w.quote_count(t.id),
                "bookmark_count": 0,
                "impression_count": 40 * t.likes + 17,
            }
        if "entities" in fields:
            entities: dict[str, Any] = {}
            if t.mentions():
                entities["mentions"] = [
                    {
                        "start": s,
                        "end": e,
                        "username": n,
                        **({"id": u.id} if (u := w.by_username(n)) else {}),
                    }
                    for s, e, n in t.mentions()
                ]
            if t.hashtags():
                entities["hashtags"] = [
                    {"start": s, "end": e, "tag": h} for s, e, h in t.hashtags()
                ]
            if t.urls():
                entities["urls"] = [
                    {
                        "start": s,
                        "end": e,
                        "url": u,
                        "expanded_url": u,
                        "display_url": u.split("//", 1)[-1][:26],
                    }
                    for s, e, u in t.urls()
                ]
            if entities:
                out["entities"] = entities
        if "referenced_tweets" in fields:
            refs = []
            if t.reply_to:
                refs.append({"type": "replied_to", "id": t.reply_to})
            if t.quoted:
                refs.append({"type": "quoted", "id": t.quoted})
            if refs:
                out["referenced_tweets"] = refs
        if "in_reply_to_user_id" in fields and t.reply_to_user:
            out["in_reply_to_user_id"] = t.reply_to_user
        if "note_tweet" in fields and long_post:
            note: dict[str, Any] = {"text": t.text}
            if t.hashtags():
                note["entities"] = {
                    "hashtags": [{"start": s, "end": e, "tag": h} for s, e, h in t.hashtags()]
                }
            out["note_tweet"] = note
        return out

    def render_user(self, u: XUser, fields: set[str]) -> dict[str, Any]:
        out: dict[str, Any] = {"id": u.id, "name": u.name, "username": u.username}
        if "created_at" in fields:
            out["created_at"] = iso_ms(u.created)
        if "description" in fields:
            out["description"] = ""
        if "verified" in fields:
            out["verified"] = False
        if "protected" in fields:
            out["protected"] = False
        if "profile_image_url" in fields:
            out["profile_image_url"] = f"https://pbs.twimg.com/profile_images/{u.id}/normal.jpg"
        return out

    def _payload(
        self, request: Request, tweets: list[XTweet]
    ) -> tuple[dict[str, Any], Response | None]:
        tweet_fields, error = self._fields(request, "tweet.fields", TWEET_FIELDS)
        if error:
            return {}, error
        user_fields, error = self._fields(request, "user.fields", USER_FIELDS)
        if error:
            return {}, error
        expansions, error = self._fields(request, "expansions", EXPANSIONS)
        if error:
            return {}, error
        w = self.world
        body: dict[str, Any] = {"data": [self.render_tweet(t, tweet_fields) for t in tweets]}
        users: dict[str, XUser] = {}
        includes_tweets: dict[str, XTweet] = {}
        errors: list[dict[str, Any]] = []
        for t in tweets:
            if "author_id" in expansions:
                users.setdefault(t.author_id, w.users[t.author_id])
            if "in_reply_to_user_id" in expansions and t.reply_to_user:
                users.setdefault(t.reply_to_user, w.users[t.reply_to_user])
            if "entities.mentions.username" in expansions:
                for _s, _e, name in t.mentions():
                    if (u := w.by_username(name)) is not None:
                        users.setdefault(u.id, u)
            if "referenced_tweets.id" in expansions:
                for ref in (t.reply_to, t.quoted):
                    if not ref:
                        continue
                    target = w.live(ref)
                    if target is None:
                        errors.append(not_found_error(ref, "referenced_tweets.id"))
                        continue
                    includes_tweets.setdefault(ref, target)
                    if "referenced_tweets.id.author_id" in expansions:
                        users.setdefault(target.author_id, w.users[target.author_id])
        includes: dict[str, Any] = {}
        if users:
            includes["users"] = [self.render_user(u, user_fields) for u in users.values()]
        if includes_tweets:
            includes["tweets"] = [
                self.render_tweet(t, tweet_fields) for t in includes_tweets.values()
            ]
        if includes:
            body["includes"] = includes
        if errors:
            body["errors"] = errors
        return body, None

    # -- routes ---------------------------------------------------------------------------

    def app(self) -> ASGIApp:
        return Starlette(
            routes=[
                Route("/2/tweets/search/recent", self.search, methods=["GET"]),
                Route("/2/tweets/{id}", self.get_tweet, methods=["GET"]),
                Route("/2/tweets", self.get_tweets, methods=["GET"]),
                Route("/2/tweets", self.create_tweet, methods=["POST"]),
                Route("/2/users/me", self.me, methods=["GET"]),
                Route("/2/users/{id}/likes", self.like, methods=["POST"]),
                Route("/2/users/{id}/mentions", self.user_mentions, methods=["GET"]),
                Route("/2/trends/by/woeid/{woeid}", self.trends, methods=["GET"]),
                Route("/2/{rest:path}", self.unknown),
            ]
        )

    async def user_mentions(self, request: Request) -> Response:
        from gwanjong_sandbox.twitter_mentions import user_mentions

        return await user_mentions(self, request)

    async def unknown(self, request: Request) -> Response:
        return problem(
            404,
            "Not Found Error",
            f"No route for {request.url.path}",
            "https://api.twitter.com/2/problems/resource-not-found",
        )

    async def get_tweet(self, request: Request) -> Response:
        _caller, bucket, error = self._guard(request)
        if error is not None:
            return error
        assert bucket is not None
        tweet_id = request.path_params["id"]
        if not tweet_id.isdigit():
            return self._stamp(
                invalid_request(
                    "id", tweet_id, f"The `id` query parameter value [{tweet_id}] is not valid"
                ),
                bucket,
            )
        tweet = self.world.live(tweet_id)
        if tweet is None:
            return self._stamp(JSONResponse({"errors": [not_found_error(tweet_id)]}), bucket)
        body, error = self._payload(request, [tweet])
        if error is not None:
            return self._stamp(error, bucket)
        body["data"] = body["data"][0]
        return self._stamp(JSONResponse(body), bucket)

    async def get_tweets(self, request: Request) -> Response:
        _caller, bucket, error = self._guard(request)
        if error is not None:
            return error
        assert bucket is not None
        ids = [i for i in request.query_params.get("ids", "").split(",") if i]
        if not ids or len(ids) > 100 or not all(i.isdigit() for i in ids):
            return self._stamp(
                invalid_request(
                    "ids", ",".join(ids), "The `ids` query parameter must hold 1-100 numeric ids"
                ),
                bucket,
            )
        found = [t for i in ids if (t := self.world.live(i)) is not None]
        body, error = self._payload(request, found)
        if error is not None:
            return self._stamp(error, bucket)
        missing = [not_found_error(i, "ids") for i in ids if self.world.live(i) is None]
        if missing:
            body["errors"] = missing + body.get("errors", [])
        if not found:
            body.pop("data", None)
        return self._stamp(JSONResponse(body), bucket)

    async def search(self, request: Request) -> Response:
        _caller, bucket, error = self._guard(request)
        if error is not None:
            return error
        assert bucket is not None
        q = request.query_params
        query = q.get("query", "")
        if not query or len(query) > 512:
            return self._stamp(
                invalid_request(
                    "query", query, "The `query` query parameter must be 1-512 characters long"
                ),
                bucket,
            )
        try:
            max_results = int(q.get("max_results", "10"))
        except ValueError:
            max_results = -1
        if not 10 <= max_results <= 100:
            value = q.get("max_results", "")
            return self._stamp(
                invalid_request(
                    "max_results",
                    value,
                    f"The `max_results` query parameter value [{value}] is not between 10 and 100",
                ),
                bucket,
            )
        token = q.get("next_token") or q.get("pagination_token")
        offset = 0
        if token:
            match = re.fullmatch(r"b26v89c19zqg8o([0-9a-f]+)", token)
            if not match:
                return self._stamp(
                    invalid_request(
                        "next_token",
                        token,
                        f"The `next_token` query parameter value [{token}] is not valid",
                    ),
                    bucket,
                )
            offset = int(match.group(1), 16)
        try:
            hits = self.world.search(query)
        except ValueError as exc:
            return self._stamp(
                invalid_request(
                    "query", query, f"There were errors processing your request: {exc}"
                ),
                bucket,
            )
        page = hits[offset : offset + max_results]
        if not page:
            return self._stamp(JSONResponse({"meta": {"result_count": 0}}), bucket)
        body, error = self._payload(request, page)
        if error is not None:
            return self._stamp(error, bucket)
        meta: dict[str, Any] = {
            "newest_id": page[0].id,
            "oldest_id": page[-1].id,
            "result_count": len(page),
        }
        if offset + max_results < len(hits):
            meta["next_token"] = f"b26v89c19zqg8o{offset + max_results:x}"
        body["meta"] = meta
        return self._stamp(JSONResponse(body), bucket)

    async def me(self, request: Request) -> Response:
        _caller, bucket, error = self._guard(request, user_context=True)
        if error is not None:
            return error
        assert bucket is not None
        fields, error = self._fields(request, "user.fields", USER_FIELDS)
        if error is not None:
            return self._stamp(error, bucket)
        return self._stamp(
            JSONResponse({"data": self.render_user(self.world.users[ME_ID], fields)}), bucket
        )

    async def trends(self, request: Request) -> Response:
        _caller, bucket, error = self._guard(request)
        if error is not None:
            return error
        assert bucket is not None
        woeid = request.path_params["woeid"]
        try:
            max_trends = int(request.query_params.get("max_trends", "20"))
        except ValueError:
            max_trends = 0
        if not woeid.isdigit():
            return self._stamp(
                invalid_request(
                    "woeid", woeid, f"The `woeid` path parameter value [{woeid}] is not valid"
                ),
                bucket,
            )
        if not 1 <= max_trends <= 50:
            value = request.query_params.get("max_trends", "")
            return self._stamp(
                invalid_request(
                    "max_trends",
                    value,
                    f"The `max_trends` query parameter value [{value}] is not between 1 and 50",
                ),
                bucket,
            )
        return self._stamp(JSONResponse({"data": self.trend_list()[:max_trends]}), bucket)

    def trend_list(self) -> list[dict[str, Any]]:
        """Hashtags of the live posts, weighted by engagement: what is "trending" here."""
        score: dict[str, int] = {}
        spelled: dict[str, str] = {}
        for t in self.world.tweets.values():
            if t.deleted:
                continue
            for _s, _e, tag in t.hashtags():
                score[tag.lower()] = score.get(tag.lower(), 0) + 1000 + 37 * t.likes
                spelled.setdefault(tag.lower(), tag)
        ranked = sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))
        return [{"trend_name": f"#{spelled[k]}", "tweet_count": v} for k, v in ranked]

    async def create_tweet(self, request: Request) -> Response:
        caller, bucket, error = self._guard(request, user_context=True)
        if error is not None:
            return error
        assert caller is not None and bucket is not None
        try:
            payload = await request.json()
        except ValueError:
            payload = None
        if not isinstance(payload, dict):
            return self._stamp(
                invalid_request("body", "", "The request body is not valid JSON"), bucket
            )
        text = str(payload.get("text") or "")
        reply = payload.get("reply") or {}
        reply_to = str(reply.get("in_reply_to_tweet_id") or "") or None
        quoted = str(payload.get("quote_tweet_id") or "") or None
        if not text.strip():
            return self._stamp(
                invalid_request("text", text, "The `text` field must not be empty"), bucket
            )
        if weighted_length(text) > 280:
            return self._stamp(
                problem(
                    403,
                    "Forbidden",
                    "Your Tweet text is too long. For more information on how Twitter "
                    "determines text length see https://github.com/twitter/twitter-text.",
                ),
                bucket,
            )
        w = self.world
        if any(
            t.author_id == caller and t.text == text and not t.deleted for t in w.tweets.values()
        ):
            return self._stamp(
                problem(
                    403,
                    "Forbidden",
                    "You are not allowed to create a Tweet with duplicate content.",
                ),
                bucket,
            )
        if reply_to is not None:
            target = w.live(reply_to)
            if target is None:
                return self._stamp(
                    invalid_request(
                        "reply.in_reply_to_tweet_id",
                        reply_to,
                        "The `reply.in_reply_to_tweet_id` field value is not a Tweet you can reply to",
                    ),
                    bucket,
                )
            if not w.summons(target, caller):
                return self._stamp(
                    problem(
                        403,
                        "Forbidden",
                        "Reply to this conversation is not allowed because you have not "
                        "been mentioned or otherwise engaged by the author of the post you are replying to.",
                    ),
                    bucket,
                )
        tweet = w.post(caller, text, reply_to=reply_to, quoted=quoted)
        url = f"https://x.com/{w.users[caller].username}/status/{tweet.id}"
        self.state.record_write(
            "twitter",
            "write_comment" if reply_to else "write_post",
            reply_to,
            text=text,
            id=tweet.id,
            url=url,
        )
        return self._stamp(
            JSONResponse(
                {"data": {"id": tweet.id, "text": text, "edit_history_tweet_ids": [tweet.id]}},
                status_code=201,
            ),
            bucket,
        )

    async def like(self, request: Request) -> Response:
        caller, bucket, error = self._guard(request, user_context=True)
        if error is not None:
            return error
        assert caller is not None and bucket is not None
        if request.path_params["id"] != caller:
            return self._stamp(
                problem(403, "Forbidden", "You are not permitted to perform this action."), bucket
            )
        try:
            payload = await request.json()
        except ValueError:
            payload = {}
        tweet_id = str((payload or {}).get("tweet_id") or "")
        tweet = self.world.live(tweet_id)
        if tweet is None:
            return self._stamp(
                JSONResponse({"errors": [not_found_error(tweet_id, "tweet_id")]}), bucket
            )
        if caller not in tweet.liked_by:
            tweet.liked_by.add(caller)
            tweet.likes += 1
            self.state.record_write("twitter", "upvote", tweet_id)
        return self._stamp(JSONResponse({"data": {"liked": True}}), bucket)
