"""Bluesky emulator: accounts, limits, ids (DIDs, CIDs, TIDs), stored posts, sessions, extra threads."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import anyio
import regex
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from gwanjong_sandbox.corpus import Node, Thread

ME_HANDLE = "gwanjong.bsky.social"
ME_NAME = "gwanjong"  # the corpus author name that handle_for() turns into ME_HANDLE
APP_PASSWORD = "gwjn-sbx1-bsky-pass"
# An account whose DID document names a PDS somewhere else: the SDK follows it there.
WANDERER_HANDLE = "wanderer.bsky.social"
WANDERER_PASSWORD = "wndr-sbx1-bsky-pass"
WANDERER_PDS = "https://pds.wanderer.invalid"
# A person's own account, signed in with an app password: no `bot` self-label on its profile.
PERSON_HANDLE = "person.bsky.social"
PERSON_PASSWORD = "prsn-sbx1-bsky-pass"
PROFILE = "app.bsky.actor.profile"
POST = "app.bsky.feed.post"
SELF_LABELS = "com.atproto.label.defs#selfLabels"
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
ERROR_NAMES = {
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


def b32(data: bytes) -> str:
    return base64.b32encode(data).decode().rstrip("=").lower()


def did_for(name: str) -> str:
    return "did:plc:" + b32(hashlib.sha256(name.encode()).digest())[:24]


def cid_for(content: str) -> str:
    return "bafyrei" + b32(hashlib.sha256(content.encode()).digest())[:52]


def tid(micros: int, clock: int = 0) -> str:
    value = (micros << 10) | (clock & 1023)
    return "".join(_S32[(value >> (5 * (12 - i))) & 31] for i in range(13))


def handle_for(name: str) -> str:
    return name.replace("_", "-").lower() + ".bsky.social"


def iso(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def graphemes(text: str) -> int:
    return len(_GRAPHEME.findall(text))


def _b64url(obj: dict[str, Any]) -> str:
    raw = json.dumps(obj, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def make_jwt(header: dict[str, Any], payload: dict[str, Any]) -> str:
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
    #: the repo's app.bsky.actor.profile/self record (None: the account never made one)
    profile: dict[str, Any] | None = None

    def self_labels(self) -> list[str]:
        """The values of the profile record's self-labels (`bot` marks an automated account)."""
        labels = (self.profile or {}).get("labels") or {}
        if labels.get("$type") != SELF_LABELS:
            return []
        return [str(v.get("val")) for v in labels.get("values") or [] if isinstance(v, dict)]


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


def extra_threads() -> list[Thread]:
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


ODD = {"odd-blocked": "blocked", "odd-gone": "notfound"}
GATES = {"gated": [{"$type": "app.bsky.feed.threadgate#followingRule"}]}


class LateRateLimit(Response):
    """A 429 whose ``RateLimit-Reset`` is computed as it is sent.

    The reset is an integer epoch second (the PDS floors it), so the client can only learn
    the wait to within a second. The window here ends on a whole second; answering just
    after a second boundary keeps ``reset - now`` at the intended value on the client.
    """

    def __init__(self, retry_after: int, headers: dict[str, str]) -> None:
        name, message = ERROR_NAMES[429]
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
