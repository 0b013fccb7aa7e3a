"""Bluesky emulator: a PDS (bsky.social) with the AppView reads it proxies, over XRPC.

What ``atproto``'s ``AsyncClient`` calls, in the shapes of platform-wire.md §2.3 and the
recorded payloads (payloads/bluesky): sessions with decodable JWTs that carry a real
``exp`` and a didDoc pointing back at the sandbox, post views with ``$type`` on every union
member, thread nodes with ``threadContext``, ``RateLimit-*`` headers on every answer and
errors as ``{"error": Name, "message": ...}`` with the PDS's status codes.

How the shared corpus becomes Bluesky:

* A thread is a post whose text is ``title + "\\n\\n" + body``. Text over 300 graphemes
  (which the real PDS refuses) is posted the way people do it: as a self-thread, each
  part a reply by the author to the previous part.
* ``{me}`` becomes ``@gwanjong.bsky.social`` with a mention facet carrying our DID at its
  UTF-8 byte offsets.
* A deleted *thread* is gone: every read of it is ``400 NotFound``.
* A deleted *comment* keeps its replies, which a real deletion on Bluesky does not do (the
  AppView drops a deleted reply together with everything under it). The nearest real
  thing that keeps the place and the replies is a reply the thread's author has hidden:
  it is listed in the root's threadgate ``hiddenReplies`` and getPostThread still returns
  it in place, with its replies.

Emulator-only threads (not in corpus.py): ``gated`` mentions us but its threadgate lets
only people the author follows reply (so ``viewer.replyDisabled`` is true for us), and
``odd-nodes`` has a ``#blockedPost`` (an author who blocks us) and a ``#notFoundPost``
among its replies; ``bsky-quotes-me`` quotes our own ``my-post`` (the inbox's ``quote``,
see bluesky_inbox.py, which also serves ``app.bsky.notification.listNotifications``).

Debug routes under the prefix, for tests: ``GET /xrpc/sandbox.debug.getCounts`` (requests
served per NSID), ``POST /xrpc/sandbox.debug.configure`` (``accessTtlS``),
``POST /xrpc/sandbox.debug.revokeSessions``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import anyio
import regex
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from gwanjong_sandbox.corpus import Node, Thread, build_corpus, walk
from gwanjong_sandbox.state import SandboxState

ME_HANDLE = "gwanjong.bsky.social"
ME_NAME = "gwanjong"  # the corpus author name that handle_for() turns into ME_HANDLE
APP_PASSWORD = "gwjn-sbx1-bsky-pass"
# An account whose DID document names a PDS somewhere else: the SDK follows it there.
WANDERER_HANDLE = "wanderer.bsky.social"
WANDERER_PASSWORD = "wndr-sbx1-bsky-pass"
WANDERER_PDS = "https://pds.wanderer.invalid"
WHATS_HOT = "at://did:plc:z72i7hdynmk6r22z27h6tvur/app.bsky.feed.generator/whats-hot"
ACCESS_TTL_S = 2 * 3600  # what bsky.social issues for app-password sessions
REFRESH_TTL_S = 60 * 24 * 3600
MAX_GRAPHEMES = 300
MAX_TEXT_BYTES = 3000
SESSION_LIMIT = (30, 300)  # createSession per handle: 30 per 5 minutes
GLOBAL_LIMIT = (3000, 300)  # every endpoint, per IP: 3000 per 5 minutes
_S32 = "234567abcdefghijklmnopqrstuvwxyz"  # base32-sortable, for TIDs
_GRAPHEME = regex.compile(r"\X")
_SIGNING_KEY = b"gwanjong-sandbox-bluesky"
_ERROR_NAMES = {
    400: ("InvalidRequest", "Invalid Request"),
    401: ("AuthenticationRequired", "Authentication Required"),
    403: ("Forbidden", "Forbidden"),
    404: ("XRPCNotSupported", "XRPC Not Supported"),
    413: ("PayloadTooLarge", "Payload Too Large"),
    429: ("RateLimitExceeded", "Rate Limit Exceeded"),
    500: ("InternalServerError", "Internal Server Error"),
    501: ("MethodNotImplemented", "Method Not Implemented"),
    502: ("UpstreamFailure", "Upstream Failure"),
    503: ("NotEnoughResources", "Not Enough Resources"),
    504: ("UpstreamTimeout", "Upstream Timeout"),
}


def _b32(data: bytes) -> str:
    return base64.b32encode(data).decode().rstrip("=").lower()


def did_for(name: str) -> str:
    return "did:plc:" + _b32(hashlib.sha256(name.encode()).digest())[:24]


def cid_for(content: str) -> str:
    return "bafyrei" + _b32(hashlib.sha256(content.encode()).digest())[:52]


def tid(micros: int, clock: int = 0) -> str:
    value = (micros << 10) | (clock & 1023)
    return "".join(_S32[(value >> (5 * (12 - i))) & 31] for i in range(13))


def handle_for(name: str) -> str:
    return name.replace("_", "-").lower() + ".bsky.social"


def _iso(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def graphemes(text: str) -> int:
    return len(_GRAPHEME.findall(text))


def _b64url(obj: dict[str, Any]) -> str:
    raw = json.dumps(obj, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _jwt(header: dict[str, Any], payload: dict[str, Any]) -> str:
    signing_input = f"{_b64url(header)}.{_b64url(payload)}"
    sig = hmac.new(_SIGNING_KEY, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{base64.urlsafe_b64encode(sig).rstrip(b'=').decode()}"


def split_text(text: str, limit: int = MAX_GRAPHEMES) -> list[str]:
    """Cut text over ``limit`` graphemes into self-thread parts at sentence (else word) ends."""
    if graphemes(text) <= limit:
        return [text]
    pieces = re.split(r"(?<=[.!?:])\s+", text)
    words: list[str] = []
    for piece in pieces:
        words.extend([piece] if graphemes(piece) <= limit else piece.split(" "))
    parts: list[str] = []
    current = ""
    for word in words:
        candidate = f"{current} {word}" if current else word
        if graphemes(candidate) <= limit:
            current = candidate
        else:
            parts.append(current)
            current = word
    if current:
        parts.append(current)
    return parts


class JSON(JSONResponse):
    media_type = "application/json; charset=utf-8"


@dataclass
class Account:
    did: str
    handle: str
    display_name: str
    created_at: str
    password: str | None = None
    pds: str | None = None  # None: this sandbox
    blocks_me: bool = False
    follows: set[str] = field(default_factory=set)  # DIDs


@dataclass
class StoredPost:
    uri: str
    cid: str
    author: str  # DID
    record: dict[str, Any]
    indexed_at: str
    likes: int = 0
    reposts: int = 0
    root: str | None = None  # thread root URI, None for a root
    parent: str | None = None
    children: list[str] = field(default_factory=list)
    gone: str | None = None  # "blocked" / "notfound": what the AppView shows instead
    violates_gate: bool = False


@dataclass
class Session:
    did: str
    access: str
    refresh: str
    access_exp: int
    refresh_exp: int


def _extra_threads() -> list[Thread]:
    return [
        Thread(
            "gated",
            "CLI 2.0 is out: replies limited while we triage",
            "Hey {me}, you asked for a changelog, so here it is. Replies are limited to people "
            "I follow while we triage the first bug reports.",
            "gatekeeper_gil",
            ["release", "cli"],
            33,
            6,
            [Node("gated-1", "friend_fay", "Congrats on shipping! The new flags are great.", 4)],
            mentions_me=True,
        ),
        Thread(
            "odd-nodes",
            "Which structured logging library do you use in Go?",
            "slog, zap or zerolog? Looking for production experience rather than benchmarks.",
            "gopher_gus",
            ["go", "logging"],
            21,
            8,
            [
                Node(
                    "odd-1",
                    "zap_zoe",
                    "zap, and we never regretted it. Sampling saved us.",
                    6,
                    12,
                    children=[Node("odd-1-1", "gopher_gus", "Thanks, sampling helps.", 2, 20)],
                ),
                Node("odd-blocked", "blocker_bo", "You cannot see this reply.", 1, 14),
                Node("odd-gone", "vanished_val", "This reply was taken down.", 0, 16),
            ],
        ),
    ]


_ODD = {"odd-blocked": "blocked", "odd-gone": "notfound"}
_GATES = {"gated": [{"$type": "app.bsky.feed.threadgate#followingRule"}]}


class _LateRateLimit(Response):
    """A 429 whose ``RateLimit-Reset`` is computed as it is sent.

    The reset is an integer epoch second (the PDS floors it), so the client can only learn
    the wait to within a second. The window here ends on a whole second; answering just
    after a second boundary keeps ``reset - now`` at the intended value on the client.
    """

    def __init__(self, retry_after: int, headers: dict[str, str]) -> None:
        name, message = _ERROR_NAMES[429]
        super().__init__(
            json.dumps({"error": name, "message": message}),
            status_code=429,
            media_type=JSON.media_type,
        )
        self._retry_after = retry_after
        self._extra = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        now = time.time()
        if now % 1 > 0.8:
            await anyio.sleep(1.0 - now % 1 + 0.005)
            now = time.time()
        self.headers.update(self._extra)
        self.headers["ratelimit-remaining"] = "0"
        self.headers["ratelimit-reset"] = str(int(now) + self._retry_after)
        await super().__call__(scope, receive, send)


class BlueskyEmulator:
    platform = "bluesky"
    prefixes = ("/xrpc/",)
    hosts: tuple[str, ...] = ()

    def __init__(self, state: SandboxState) -> None:
        self.state = state
        self.reset()

    # -- seed -----------------------------------------------------------------------

    def reset(self) -> None:
        self.accounts: dict[str, Account] = {}
        self.posts: dict[str, StoredPost] = {}
        self.gates: dict[str, dict[str, Any]] = {}  # root URI -> threadgate record
        self.roots: dict[str, str] = {}  # corpus key -> root URI
        self.likes: dict[tuple[str, str], str] = {}  # (liker DID, subject URI) -> like URI
        self.sessions: dict[str, Session] = {}  # access JWT -> session
        self.refresh_tokens: dict[str, Session] = {}
        self.counts: dict[str, int] = {}
        self.session_calls: dict[str, list[float]] = {}
        self.global_calls: list[float] = []
        self.access_ttl_s = ACCESS_TTL_S
        self._clock = itertools.count(1)
        base = datetime(2026, 11, 1, tzinfo=UTC)
        self.me = self._account(ME_HANDLE, "Gwanjong Bot", base, APP_PASSWORD)
        self._account(WANDERER_HANDLE, "Wanderer", base, WANDERER_PASSWORD, pds=WANDERER_PDS)
        for thread in [*build_corpus(ME_NAME), *_extra_threads()]:
            self._seed(thread)
        from gwanjong_sandbox.bluesky_inbox import seed_quote

        seed_quote(self)
        gil = self._by_name("gatekeeper_gil")
        gil.follows.add(self._by_name("friend_fay").did)
        self._by_name("blocker_bo").blocks_me = True

    def _account(
        self,
        handle: str,
        display: str,
        created: datetime,
        password: str | None = None,
        pds: str | None = None,
    ) -> Account:
        did = did_for(handle)
        account = self.accounts.get(did)
        if account is None:
            account = Account(did, handle, display, _iso(created), password, pds)
            self.accounts[did] = account
        return account

    def _by_name(self, name: str) -> Account:
        return self.accounts[did_for(handle_for(name))]

    def _author(self, name: str) -> Account:
        return self._account(
            handle_for(name), name.replace("_", " ").title(), datetime(2024, 3, 1, tzinfo=UTC)
        )

    def _new_uri(self, did: str, collection: str, when: datetime) -> str:
        micros = int(when.timestamp() * 1_000_000)
        return f"at://{did}/{collection}/{tid(micros, next(self._clock))}"

    def _store(
        self,
        author: Account,
        text: str,
        when: datetime,
        *,
        root: str | None,
        parent: str | None,
        likes: int = 0,
        tags: list[str] | None = None,
        langs: list[str] | None = None,
    ) -> StoredPost:
        uri = self._new_uri(author.did, "app.bsky.feed.post", when)
        record: dict[str, Any] = {
            "$type": "app.bsky.feed.post",
            "createdAt": _iso(when),
            "langs": langs or ["en"],
            "text": text,
        }
        facets = self._mention_facets(text)
        if facets:
            record["facets"] = facets
        if tags:
            record["tags"] = tags
        if root is not None and parent is not None:
            record["reply"] = {
                "parent": {"cid": self.posts[parent].cid, "uri": parent},
                "root": {"cid": self.posts[root].cid, "uri": root},
            }
        post = StoredPost(
            uri,
            cid_for(uri + text),
            author.did,
            record,
            _iso(when + timedelta(milliseconds=250)),
            likes,
            0,
            root,
            parent,
        )
        self.posts[uri] = post
        if parent is not None:
            self.posts[parent].children.append(uri)
        return post

    def _mention_facets(self, text: str) -> list[dict[str, Any]]:
        facets: list[dict[str, Any]] = []
        if "@" not in text:
            return facets
        data = text.encode()
        for account in self.accounts.values():
            needle = f"@{account.handle}".encode()
            start = data.find(needle)
            while start != -1:
                facets.append(
                    {
                        "$type": "app.bsky.richtext.facet",
                        "features": [
                            {"$type": "app.bsky.richtext.facet#mention", "did": account.did}
                        ],
                        "index": {"byteEnd": start + len(needle), "byteStart": start},
                    }
                )
                start = data.find(needle, start + 1)
        return sorted(facets, key=lambda f: f["index"]["byteStart"])

    def _seed(self, thread: Thread) -> None:
        author = self._author(thread.author)
        text = f"{thread.title}\n\n{thread.body}".replace("{me}", f"@{ME_HANDLE}")
        created = thread.created
        lang = ["ko"] if thread.key == "korean-dev" else ["en"]
        if thread.deleted:  # gone: its URI exists in ids() only
            self.roots[thread.key] = self._new_uri(author.did, "app.bsky.feed.post", created)
            return
        parts = split_text(text)
        root = self._store(
            author,
            parts[0],
            created,
            root=None,
            parent=None,
            likes=thread.likes,
            tags=list(thread.tags),
            langs=lang,
        )
        self.roots[thread.key] = root.uri
        last = root
        for i, part in enumerate(parts[1:], start=1):  # the author's own continuation
            last = self._store(
                author,
                part,
                created + timedelta(seconds=i),
                root=root.uri,
                parent=last.uri,
                langs=lang,
            )
        if thread.key in _GATES:
            self._gate(root.uri, created, allow=_GATES[thread.key])
        uris: dict[str, str] = {}
        for node, _depth, parent in walk(thread.comments):
            who = self._author(node.author)
            when = created + timedelta(minutes=node.minutes, seconds=len(uris) % 60)
            parent_uri = uris[parent.key] if parent is not None else root.uri
            post = self._store(
                who,
                node.body.replace("{me}", f"@{ME_HANDLE}"),
                when,
                root=root.uri,
                parent=parent_uri,
                likes=node.likes,
                langs=lang,
            )
            uris[node.key] = post.uri
            post.gone = _ODD.get(node.key)
            if node.deleted:  # hidden by the thread's author: listed, still in place
                gate = self._gate(root.uri, created)
                gate["hiddenReplies"].append(post.uri)

    def _gate(
        self, root: str, when: datetime, allow: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        gate = self.gates.get(root)
        if gate is None:
            gate = {
                "$type": "app.bsky.feed.threadgate",
                "createdAt": _iso(when),
                "post": root,
                "hiddenReplies": [],
            }
            if allow is not None:
                gate["allow"] = allow
            self.gates[root] = gate
        return gate

    def demo_env(self, base_url: str) -> dict[str, str]:
        return {
            "BLUESKY_BASE_URL": base_url,
            "BLUESKY_HANDLE": ME_HANDLE,
            "BLUESKY_APP_PASSWORD": APP_PASSWORD,
            "BLUESKY_ALLOWED_HOSTS": urlsplit(base_url).hostname or "127.0.0.1",
        }

    def ids(self) -> dict[str, str]:
        ids = dict(self.roots)
        ids["missing"] = f"at://{self.me.did}/app.bsky.feed.post/3lzzzzzzzzz2a"
        return ids

    # -- views ----------------------------------------------------------------------

    def _profile_basic(self, did: str, viewer: str | None) -> dict[str, Any]:
        account = self.accounts[did]
        view: dict[str, Any] = {
            "did": did,
            "handle": account.handle,
            "displayName": account.display_name,
            "avatar": f"https://cdn.bsky.app/img/avatar/plain/{did}/{cid_for(did)}@jpeg",
            "labels": [],
            "createdAt": account.created_at,
        }
        if viewer is not None:
            view["viewer"] = {
                "muted": False,
                "blockedBy": account.blocks_me and viewer == self.me.did,
            }
        return view

    def _reply_allowed(self, root: str, did: str) -> bool:
        gate = self.gates.get(root)
        if gate is None or "allow" not in gate:
            return True
        root_post = self.posts.get(root)
        if root_post is None or root_post.author == did:
            return True
        for rule in gate["allow"]:
            kind = rule.get("$type", "")
            if kind.endswith("#mentionRule") and any(
                f["did"] == did
                for facet in root_post.record.get("facets", [])
                for f in facet["features"]
                if f.get("$type") == "app.bsky.richtext.facet#mention"
            ):
                return True
            if kind.endswith("#followingRule") and did in self.accounts[root_post.author].follows:
                return True
            if kind.endswith("#followerRule") and root_post.author in self.accounts[did].follows:
                return True
        return False

    def _gate_view(self, root: str) -> dict[str, Any] | None:
        gate = self.gates.get(root)
        if gate is None:
            return None
        did = root.split("/")[2]
        uri = f"at://{did}/app.bsky.feed.threadgate/{root.rsplit('/', 1)[1]}"
        return {"uri": uri, "cid": cid_for(uri + json.dumps(gate)), "record": gate, "lists": []}

    def _post_view(self, post: StoredPost, viewer: str | None) -> dict[str, Any]:
        root = post.root or post.uri
        view: dict[str, Any] = {
            "uri": post.uri,
            "cid": post.cid,
            "author": self._profile_basic(post.author, viewer),
            "record": post.record,
            "replyCount": sum(1 for c in post.children if not self.posts[c].violates_gate),
            "repostCount": post.reposts,
            "likeCount": post.likes,
            "quoteCount": 0,
            "indexedAt": post.indexed_at,
            "labels": [],
        }
        if viewer is not None:
            state: dict[str, Any] = {"threadMuted": False, "embeddingDisabled": False}
            like = self.likes.get((viewer, post.uri))
            if like:
                state["like"] = like
            if root in self.gates:
                state["replyDisabled"] = not self._reply_allowed(root, viewer)
            view["viewer"] = state
        if post.root is None and post.uri in self.gates:
            view["threadgate"] = self._gate_view(post.uri)
        return view

    def _node(self, post: StoredPost, viewer: str | None, depth: int) -> dict[str, Any]:
        if post.gone == "notfound":
            return {"$type": "app.bsky.feed.defs#notFoundPost", "uri": post.uri, "notFound": True}
        if post.gone == "blocked":
            return {
                "$type": "app.bsky.feed.defs#blockedPost",
                "uri": post.uri,
                "blocked": True,
                "author": {"did": post.author, "viewer": {"blockedBy": True}},
            }
        node: dict[str, Any] = {
            "$type": "app.bsky.feed.defs#threadViewPost",
            "post": self._post_view(post, viewer),
        }
        if depth > 0:
            node["replies"] = [
                self._node(self.posts[c], viewer, depth - 1)
                for c in post.children
                if not self.posts[c].violates_gate
            ]
        node["threadContext"] = {}
        return node

    def _parents(self, post: StoredPost, viewer: str | None, height: int) -> dict[str, Any] | None:
        if height <= 0 or post.parent is None:
            return None
        parent = self.posts.get(post.parent)
        if parent is None:
            return {
                "$type": "app.bsky.feed.defs#notFoundPost",
                "uri": post.parent,
                "notFound": True,
            }
        node = self._node(parent, viewer, 0)
        node.pop("replies", None)
        above = self._parents(parent, viewer, height - 1)
        if above is not None and node["$type"].endswith("threadViewPost"):
            node["parent"] = above
        return node

    # -- plumbing -------------------------------------------------------------------

    def _limit_headers(self, limit: tuple[int, int], calls: list[float]) -> dict[str, str]:
        now = time.time()
        window_start = calls[0] if calls else now
        return {
            "RateLimit-Limit": str(limit[0]),
            "RateLimit-Remaining": str(max(0, limit[0] - len(calls))),
            "RateLimit-Reset": str(int(window_start + limit[1])),
            "RateLimit-Policy": f"{limit[0]};w={limit[1]}",
        }

    def _global_headers(self) -> dict[str, str]:
        now = time.time()
        self.global_calls = [t for t in self.global_calls if t > now - GLOBAL_LIMIT[1]]
        self.global_calls.append(now)
        return self._limit_headers(GLOBAL_LIMIT, self.global_calls)

    def _ok(self, body: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
        return JSON(body, headers=headers or self._global_headers())

    def _error(
        self,
        status: int,
        error: str | None = None,
        message: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        name, default = _ERROR_NAMES.get(status, ("InternalServerError", "Internal Server Error"))
        return JSON(
            {"error": error or name, "message": message or default},
            status_code=status,
            headers=headers or self._global_headers(),
        )

    def error_response(self, status: int, retry_after: int | None) -> Response:
        if status == 429:
            headers = self._limit_headers(GLOBAL_LIMIT, self.global_calls)
            return _LateRateLimit(retry_after if retry_after is not None else 60, headers)
        return self._error(status)

    def _viewer(self, request: Request) -> str | Response:
        header = request.headers.get("authorization", "")
        if not header.startswith("Bearer "):
            return self._error(401, "AuthMissing", "Authentication Required")
        session = self.sessions.get(header[len("Bearer ") :])
        if session is None:
            return self._error(400, "InvalidToken", "Token could not be verified")
        if session.access_exp <= time.time():
            return self._error(400, "ExpiredToken", "Token has expired")
        return session.did

    def _issue(self, did: str) -> Session:
        now = int(time.time())
        aud = "did:web:sandbox.host.bsky.network"
        access_exp = now + self.access_ttl_s
        access = _jwt(
            {"typ": "at+jwt", "alg": "HS256"},
            {"scope": "com.atproto.appPass", "sub": did, "iat": now, "exp": access_exp, "aud": aud},
        )
        refresh_exp = now + REFRESH_TTL_S
        refresh = _jwt(
            {"typ": "refresh+jwt", "alg": "HS256"},
            {
                "scope": "com.atproto.refresh",
                "sub": did,
                "aud": aud,
                "jti": secrets.token_urlsafe(24),
                "iat": now,
                "exp": refresh_exp,
            },
        )
        session = Session(did, access, refresh, access_exp, refresh_exp)
        self.sessions[access] = session
        self.refresh_tokens[refresh] = session
        return session

    def _did_doc(self, account: Account, request: Request) -> dict[str, Any]:
        endpoint = account.pds or f"{request.url.scheme}://{request.url.netloc}"
        return {
            "@context": [
                "https://www.w3.org/ns/did/v1",
                "https://w3id.org/security/multikey/v1",
                "https://w3id.org/security/suites/secp256k1-2019/v1",
            ],
            "id": account.did,
            "alsoKnownAs": [f"at://{account.handle}"],
            "verificationMethod": [
                {
                    "id": f"{account.did}#atproto",
                    "type": "Multikey",
                    "controller": account.did,
                    "publicKeyMultibase": "zQ3sh"
                    + _b32(hashlib.sha256(account.did.encode()).digest())[:44],
                }
            ],
            "service": [
                {
                    "id": "#atproto_pds",
                    "type": "AtprotoPersonalDataServer",
                    "serviceEndpoint": endpoint,
                }
            ],
        }

    def _resolve(self, actor: str) -> Account | None:
        actor = actor.lower().lstrip("@")
        if actor.startswith("did:"):
            return self.accounts.get(actor)
        return next((a for a in self.accounts.values() if a.handle == actor), None)

    def _find(self, uri: str) -> StoredPost | None:
        match = re.fullmatch(r"at://([^/]+)/app\.bsky\.feed\.post/([^/?#]+)", uri)
        if not match:
            return None
        account = self._resolve(match[1])
        if account is None:
            return None
        return self.posts.get(f"at://{account.did}/app.bsky.feed.post/{match[2]}")

    @staticmethod
    def _int(request: Request, name: str, default: int, low: int, high: int) -> int | None:
        raw = request.query_params.get(name)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            return None
        return value if low <= value <= high else None

    # -- routes ---------------------------------------------------------------------

    def app(self) -> ASGIApp:
        queries: dict[str, Callable[[Request], Awaitable[Response]]] = {
            "app.bsky.actor.getProfile": self.get_profile,
            "com.atproto.identity.resolveHandle": self.resolve_handle,
            "app.bsky.feed.getFeed": self.get_feed,
            "app.bsky.feed.searchPosts": self.search_posts,
            "app.bsky.feed.getPostThread": self.get_post_thread,
            "app.bsky.feed.getPosts": self.get_posts,
            "com.atproto.server.getSession": self.get_session,
            "sandbox.debug.getCounts": self.debug_counts,
            "app.bsky.notification.listNotifications": self.list_notifications,
        }
        procedures: dict[str, Callable[[Request], Awaitable[Response]]] = {
            "com.atproto.server.createSession": self.create_session,
            "com.atproto.server.refreshSession": self.refresh_session,
            "com.atproto.repo.createRecord": self.create_record,
            "sandbox.debug.configure": self.debug_configure,
            "sandbox.debug.revokeSessions": self.debug_revoke,
        }

        async def dispatch(request: Request) -> Response:
            nsid = request.path_params["nsid"]
            self.counts[nsid] = self.counts.get(nsid, 0) + 1
            table, other = (
                (queries, procedures) if request.method == "GET" else (procedures, queries)
            )
            handler = table.get(nsid)
            if handler is None:
                if nsid in other:
                    expected = "POST" if request.method == "GET" else "GET"
                    return self._error(
                        400,
                        "InvalidRequest",
                        f"Incorrect HTTP method ({request.method}) expected {expected}",
                    )
                return self._error(501, "MethodNotImplemented", "Method Not Implemented")
            return await handler(request)

        return Starlette(routes=[Route("/xrpc/{nsid}", dispatch, methods=["GET", "POST"])])

    async def _json_body(self, request: Request) -> dict[str, Any] | Response:
        try:
            body = await request.json()
        except ValueError:
            return self._error(400, "InvalidRequest", "Request body is not valid JSON")
        if not isinstance(body, dict):
            return self._error(400, "InvalidRequest", "Input must be an object")
        return body

    # sessions

    async def create_session(self, request: Request) -> Response:
        body = await self._json_body(request)
        if isinstance(body, Response):
            return body
        identifier = str(body.get("identifier") or "")
        password = str(body.get("password") or "")
        if not identifier or not password:
            return self._error(400, "InvalidRequest", 'Input must have the property "identifier"')
        now = time.time()
        key = identifier.lower()
        calls = [t for t in self.session_calls.get(key, []) if t > now - SESSION_LIMIT[1]]
        headers = self._limit_headers(SESSION_LIMIT, calls)
        if len(calls) >= SESSION_LIMIT[0]:
            headers["RateLimit-Remaining"] = "0"
            return self._error(429, headers=headers)
        calls.append(now)
        self.session_calls[key] = calls
        headers = self._limit_headers(SESSION_LIMIT, calls)
        account = self._resolve(identifier)
        if (
            account is None
            or account.password is None
            or not hmac.compare_digest(account.password, password)
        ):
            return self._error(
                401, "AuthenticationRequired", "Invalid identifier or password", headers=headers
            )
        session = self._issue(account.did)
        return self._ok(
            {
                "did": account.did,
                "didDoc": self._did_doc(account, request),
                "handle": account.handle,
                "email": f"{account.handle.split('.')[0]}@sandbox.test",
                "emailConfirmed": True,
                "emailAuthFactor": False,
                "accessJwt": session.access,
                "refreshJwt": session.refresh,
                "active": True,
            },
            headers,
        )

    async def refresh_session(self, request: Request) -> Response:
        header = request.headers.get("authorization", "")
        if not header.startswith("Bearer "):
            return self._error(401, "AuthMissing", "Authentication Required")
        session = self.refresh_tokens.pop(header[len("Bearer ") :], None)
        if session is None:
            return self._error(400, "InvalidToken", "Token could not be verified")
        if session.refresh_exp <= time.time():
            return self._error(400, "ExpiredToken", "Token has expired")
        self.sessions.pop(session.access, None)
        account = self.accounts[session.did]
        fresh = self._issue(session.did)
        return self._ok(
            {
                "accessJwt": fresh.access,
                "refreshJwt": fresh.refresh,
                "handle": account.handle,
                "did": account.did,
                "didDoc": self._did_doc(account, request),
                "active": True,
            }
        )

    async def get_session(self, request: Request) -> Response:
        viewer = self._viewer(request)
        if isinstance(viewer, Response):
            return viewer
        account = self.accounts[viewer]
        return self._ok(
            {
                "handle": account.handle,
                "did": account.did,
                "emailConfirmed": True,
                "didDoc": self._did_doc(account, request),
                "active": True,
            }
        )

    # reads (the PDS proxies these to the AppView for a signed-in account)

    async def get_profile(self, request: Request) -> Response:
        viewer = self._viewer(request)
        if isinstance(viewer, Response):
            return viewer
        account = self._resolve(request.query_params.get("actor", ""))
        if account is None:
            return self._error(400, "InvalidRequest", "Profile not found")
        posts = sum(1 for p in self.posts.values() if p.author == account.did)
        return self._ok(
            {
                **self._profile_basic(account.did, viewer),
                "description": "",
                "indexedAt": account.created_at,
                "followersCount": 3,
                "followsCount": len(account.follows),
                "postsCount": posts,
                "associated": {"lists": 0, "feedgens": 0, "starterPacks": 0, "labeler": False},
            }
        )

    async def resolve_handle(self, request: Request) -> Response:
        account = self._resolve(request.query_params.get("handle", ""))
        if account is None or account.handle.startswith("did:"):
            return self._error(400, "InvalidRequest", "Unable to resolve handle")
        return self._ok({"did": account.did})

    def _visible_roots(self) -> list[StoredPost]:
        return [p for p in self.posts.values() if p.root is None and p.gone is None]

    async def get_feed(self, request: Request) -> Response:
        viewer = self._viewer(request)
        if isinstance(viewer, Response):
            return viewer
        if request.query_params.get("feed") != WHATS_HOT:
            return self._error(400, "UnknownFeed", "Unknown feed")
        limit = self._int(request, "limit", 50, 1, 100)
        offset = self._int(request, "cursor", 0, 0, 10_000)
        if limit is None or offset is None:
            return self._error(400, "InvalidRequest", "Invalid limit or cursor")
        ranked = sorted(self._visible_roots(), key=lambda p: (-p.likes, p.uri))
        page = ranked[offset : offset + limit]
        body: dict[str, Any] = {"feed": [{"post": self._post_view(p, viewer)} for p in page]}
        if offset + limit < len(ranked):
            body["cursor"] = str(offset + limit)
        return self._ok(body)

    async def search_posts(self, request: Request) -> Response:
        viewer = self._viewer(request)
        if isinstance(viewer, Response):
            return viewer
        q = request.query_params.get("q", "")
        if not q.strip():
            return self._error(400, "InvalidRequest", 'Error: Params must have the property "q"')
        limit = self._int(request, "limit", 25, 1, 100)
        offset = self._int(request, "cursor", 0, 0, 10_000)
        if limit is None or offset is None:
            return self._error(400, "InvalidRequest", "Invalid limit or cursor")
        terms = [t.lower().lstrip("#") for t in q.split() if t.strip()]
        hits = [
            p
            for p in self.posts.values()
            if p.gone is None
            and not p.violates_gate
            and all(t in p.record["text"].lower() or t in p.record.get("tags", []) for t in terms)
        ]
        if request.query_params.get("sort") == "latest":
            hits.sort(key=lambda p: p.record["createdAt"], reverse=True)
        else:
            hits.sort(key=lambda p: (-p.likes, p.record["createdAt"]))
        page = hits[offset : offset + limit]
        body: dict[str, Any] = {"posts": [self._post_view(p, viewer) for p in page]}
        if offset + limit < len(hits):
            body["cursor"] = str(offset + limit)
        return self._ok(body)

    async def get_post_thread(self, request: Request) -> Response:
        viewer = self._viewer(request)
        if isinstance(viewer, Response):
            return viewer
        uri = request.query_params.get("uri", "")
        depth = self._int(request, "depth", 6, 0, 1000)
        height = self._int(request, "parentHeight", 80, 0, 1000)
        if not uri or depth is None or height is None:
            return self._error(400, "InvalidRequest", "Invalid uri, depth or parentHeight")
        post = self._find(uri)
        if post is None or post.gone == "notfound":
            return self._error(400, "NotFound", f"Post not found: {uri}")
        thread = self._node(post, viewer, depth)
        parent = self._parents(post, viewer, height)
        if parent is not None and thread["$type"].endswith("threadViewPost"):
            thread = {
                "$type": thread["$type"],
                "post": thread["post"],
                "parent": parent,
                **{k: v for k, v in thread.items() if k not in ("$type", "post")},
            }
        body: dict[str, Any] = {"thread": thread}
        gate = self._gate_view(post.root or post.uri)
        if gate is not None:
            body["threadgate"] = gate
        return self._ok(body)

    async def get_posts(self, request: Request) -> Response:
        viewer = self._viewer(request)
        if isinstance(viewer, Response):
            return viewer
        uris = request.query_params.getlist("uris")
        if not uris or len(uris) > 25:
            return self._error(400, "InvalidRequest", "uris must have between 1 and 25 items")
        found = [self._find(u) for u in uris]
        return self._ok(
            {
                "posts": [
                    self._post_view(p, viewer) for p in found if p is not None and p.gone is None
                ]
            }
        )

    # writes

    async def create_record(self, request: Request) -> Response:
        viewer = self._viewer(request)
        if isinstance(viewer, Response):
            return viewer
        body = await self._json_body(request)
        if isinstance(body, Response):
            return body
        account = self._resolve(str(body.get("repo") or ""))
        if account is None or account.did != viewer:
            return self._error(400, "InvalidRequest", "Can not write to a repo other than your own")
        collection = body.get("collection")
        record = body.get("record")
        if not isinstance(record, dict) or record.get("$type") != collection:
            return self._error(
                400,
                "InvalidRequest",
                f"Invalid $type: expected {collection}, got {record and record.get('$type')}",
            )
        now = datetime.now(UTC)
        if collection == "app.bsky.feed.post":
            return self._create_post(account, record, now)
        if collection == "app.bsky.feed.like":
            return self._create_like(account, record, now)
        return self._error(400, "InvalidRequest", f"Unsupported collection: {collection}")

    def _invalid(self, collection: str, problem: str) -> Response:
        return self._error(400, "InvalidRequest", f"Invalid {collection} record: {problem}")

    def _create_post(self, account: Account, record: dict[str, Any], now: datetime) -> Response:
        text = record.get("text")
        if not isinstance(text, str) or not isinstance(record.get("createdAt"), str):
            return self._invalid("app.bsky.feed.post", 'Record must have the property "text"')
        if graphemes(text) > MAX_GRAPHEMES:
            return self._invalid(
                "app.bsky.feed.post",
                f"Record/text must not be longer than {MAX_GRAPHEMES} graphemes",
            )
        if len(text.encode()) > MAX_TEXT_BYTES:
            return self._invalid(
                "app.bsky.feed.post",
                f"Record/text must not be longer than {MAX_TEXT_BYTES} characters",
            )
        if len(record.get("langs") or []) > 3:
            return self._invalid(
                "app.bsky.feed.post", "Record/langs must not have more than 3 elements"
            )
        tags = record.get("tags") or []
        if len(tags) > 8 or any(graphemes(str(t)) > 64 for t in tags):
            return self._invalid(
                "app.bsky.feed.post", "Record/tags must not have more than 8 elements"
            )
        size = len(text.encode())
        for facet in record.get("facets") or []:
            index = facet.get("index") or {}
            start, end = index.get("byteStart"), index.get("byteEnd")
            if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= size):
                return self._invalid(
                    "app.bsky.feed.post", "Record/facets/index must be a byte slice of text"
                )
        reply = record.get("reply")
        root_uri = parent_uri = None
        if reply is not None:
            try:
                root_uri, parent_uri = str(reply["root"]["uri"]), str(reply["parent"]["uri"])
                if not (reply["root"]["cid"] and reply["parent"]["cid"]):
                    raise KeyError("cid")
            except (KeyError, TypeError):
                return self._invalid(
                    "app.bsky.feed.post", 'Record/reply must have "root" and "parent" strong refs'
                )
        uri = self._new_uri(account.did, "app.bsky.feed.post", now)
        stored_record = {k: v for k, v in record.items()}
        post = StoredPost(
            uri,
            cid_for(uri + json.dumps(record, sort_keys=True)),
            account.did,
            stored_record,
            _iso(now),
            root=root_uri,
            parent=parent_uri,
        )
        parent = self.posts.get(parent_uri) if parent_uri else None
        if parent is not None and root_uri is not None:
            post.violates_gate = not self._reply_allowed(root_uri, account.did)
            parent.children.append(uri)
        self.posts[uri] = post
        if reply is None:
            self.state.record_write(
                "bluesky",
                "write_post",
                None,
                text=text,
                facets=record.get("facets") or [],
                langs=record.get("langs"),
                tags=tags,
                uri=uri,
                record=record,
            )
        else:
            self.state.record_write(
                "bluesky",
                "write_comment",
                parent_uri,
                text=text,
                facets=record.get("facets") or [],
                root=reply["root"],
                parent=reply["parent"],
                uri=uri,
                record=record,
            )
        return self._created(uri, post.cid, now)

    def _create_like(self, account: Account, record: dict[str, Any], now: datetime) -> Response:
        subject = record.get("subject")
        if not isinstance(subject, dict) or not subject.get("uri") or not subject.get("cid"):
            return self._invalid("app.bsky.feed.like", 'Record must have the property "subject"')
        uri = self._new_uri(account.did, "app.bsky.feed.like", now)
        cid = cid_for(uri + json.dumps(record, sort_keys=True))
        target = self._find(str(subject["uri"]))
        if target is not None and (account.did, target.uri) not in self.likes:
            target.likes += 1
            self.likes[(account.did, target.uri)] = uri
        self.state.record_write(
            "bluesky", "upvote", str(subject["uri"]), subject=subject, uri=uri, record=record
        )
        return self._created(uri, cid, now)

    def _created(self, uri: str, cid: str, now: datetime) -> Response:
        rev = tid(int(now.timestamp() * 1_000_000), next(self._clock))
        return self._ok(
            {
                "uri": uri,
                "cid": cid,
                "commit": {"cid": cid_for(f"commit:{uri}"), "rev": rev},
                "validationStatus": "valid",
            }
        )

    # debug routes for tests (under the prefix, so they count as this platform's requests)

    async def list_notifications(self, request: Request) -> Response:
        from gwanjong_sandbox.bluesky_inbox import list_notifications

        return await list_notifications(self, request)

    async def debug_counts(self, _request: Request) -> Response:
        return JSON({"counts": dict(self.counts)})

    async def debug_configure(self, request: Request) -> Response:
        body = await self._json_body(request)
        if isinstance(body, Response):
            return body
        if "accessTtlS" in body:
            self.access_ttl_s = int(body["accessTtlS"])
        return JSON({"ok": True, "accessTtlS": self.access_ttl_s})

    async def debug_revoke(self, _request: Request) -> Response:
        revoked = len(self.sessions)
        self.sessions.clear()
        self.refresh_tokens.clear()
        return JSON({"ok": True, "revoked": revoked})
