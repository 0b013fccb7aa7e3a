"""Who may use the console, and what a request must carry.

Sign-in: a one-time link (`/signin/<256-bit token>`) printed where the operator reads it,
or (team mode) a bearer token / JWT typed into the sign-in form and checked the way the
HTTP gateway checks it. Either becomes a server-side session (random id in an HttpOnly,
SameSite=Strict cookie, `Secure` when served over https) with an expiry; the link is void
once used. A link sent to a URL-mode client is an approval link: good for 15 minutes, once,
and its session opens that one approval (while its digest is the one the link was made
for) and nothing else: never the operator's console.

Every request: the Host must be the console's own address (DNS rebinding refused); every
POST: the Origin must be the console's own and the form must carry the session's CSRF
token. A refusal changes nothing. Every answer carries a strict CSP and no-cache headers.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from gwanjong_gateway.rules.approvals import operator_name

#: every answer's headers: no script but our own file, nothing framed, cached or referred
HEADERS = {
    "content-security-policy": (
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "cache-control": "no-store",
    "pragma": "no-cache",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}


#: the largest form the console accepts (an edited text is at most a few tens of KB)
MAX_BODY = 512 * 1024
#: how long an approval link (sent to a URL-mode client) and its session are good
APPROVAL_LINK_S = 15 * 60.0


@dataclass(frozen=True)
class Scope:
    """All an approval link's session may open: one approval, while its digest is this."""

    approval_id: int
    digest: str

    @property
    def path(self) -> str:
        return f"/approvals/{self.approval_id}"


@dataclass
class Session:
    """A signed-in person. ``principal`` None: the operator (the one-time link), who
    decides and reads everything, as at the terminal, unless ``scope`` confines the
    session to one approval (an approval link's)."""

    id: str
    name: str
    principal: str | None
    csrf: str
    expires_at: float
    scope: Scope | None = None


@dataclass(frozen=True)
class _Link:
    expires_at: float
    then: str
    scope: Scope | None


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Sessions:
    """Sign-in links and sessions, in memory: a restart signs everyone out."""

    ttl_s: float
    clock: Callable[[], float] = time.time
    #: unused links by their token's hash (the token itself is never kept)
    _links: dict[str, _Link] = field(default_factory=dict[str, _Link])
    _sessions: dict[str, Session] = field(default_factory=dict[str, Session])

    def new_link(self, then: str = "") -> str:
        """A one-time sign-in token (256 bits) for the operator; only its hash is kept.
        ``then``: the page it leads to (a path of this console)."""
        return self._mint(_Link(self.clock() + self.ttl_s, then or "/approvals", None))

    def approval_link(self, approval_id: int, digest: str) -> str:
        """A one-time token whose session opens approval ``approval_id`` only, while its
        digest is ``digest``, for `APPROVAL_LINK_S`: what a URL-mode client is sent."""
        scope = Scope(approval_id, digest)
        return self._mint(_Link(self.clock() + APPROVAL_LINK_S, scope.path, scope))

    def _mint(self, link: _Link) -> str:
        token = secrets.token_urlsafe(32)
        self._drop_expired()
        self._links[_hash(token)] = link
        return token

    def landing(self, token: str) -> str:
        """Where the link ``token`` leads (asked with its redemption)."""
        link = self._links.get(_hash(token))
        return link.then if link is not None else "/approvals"

    def redeem(self, token: str) -> Session | None:
        """The session of a link token, which is then void: the operator's, or an
        approval link's confined one; None if unknown, used or expired."""
        link = self._links.pop(_hash(token), None)
        if link is None or link.expires_at <= self.clock():
            return None
        if link.scope is not None:
            return self.start(operator_name(), None, link.scope, APPROVAL_LINK_S)
        return self.start(operator_name(), None)  # one name on every channel

    def start(
        self,
        name: str,
        principal: str | None,
        scope: Scope | None = None,
        ttl_s: float | None = None,
    ) -> Session:
        self._drop_expired()
        session = Session(
            id=secrets.token_urlsafe(32),
            name=name,
            principal=principal,
            csrf=secrets.token_urlsafe(32),
            expires_at=self.clock() + (self.ttl_s if ttl_s is None else ttl_s),
            scope=scope,
        )
        self._sessions[_hash(session.id)] = session
        return session

    def get(self, session_id: str | None) -> Session | None:
        if not session_id:
            return None
        session = self._sessions.get(_hash(session_id))
        if session is None or session.expires_at <= self.clock():
            return None
        return session

    def end(self, session_id: str) -> None:
        self._sessions.pop(_hash(session_id), None)

    def _drop_expired(self) -> None:
        now = self.clock()
        for key in [k for k, s in self._sessions.items() if s.expires_at <= now]:
            del self._sessions[key]
        for key in [k for k, link in self._links.items() if link.expires_at <= now]:
            del self._links[key]


def csrf_ok(session: Session, given: object) -> bool:
    return isinstance(given, str) and hmac.compare_digest(given.encode(), session.csrf.encode())


def origins_for(host: str, port: int) -> tuple[set[str], set[str]]:
    """The Host values and Origins of a console bound at ``host:port``: its own address,
    and ``localhost`` as well when that address is loopback."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    names = {shown}
    if host in ("127.0.0.1", "::1", "localhost"):
        names |= {"127.0.0.1", "localhost", "[::1]"}
    hosts = {f"{n}:{port}" for n in names}
    return hosts, {f"http://{h}" for h in hosts}


def public_origin(url: str) -> tuple[set[str], set[str]]:
    """The Host values and Origin of `[console] public_url` (what a TLS-terminating
    proxy serves; "" adds none). A proxy may pass the public Host on or its own."""
    if not url:
        return set(), set()
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}[parts.scheme]
    host = parts.netloc.lower()
    hosts = {host}
    if parts.port is None:  # a browser's Host may name the default port, or not
        hosts.add(f"{host}:{default}")
    elif parts.port == default:
        hosts.add(host.rpartition(":")[0])
    origin = f"{parts.scheme}://{host if parts.port != default else host.rpartition(':')[0]}"
    return hosts, {origin}


def same_origin(headers: dict[str, str], origins: set[str]) -> bool:
    """Whether an unsafe request comes from the console's own pages. Its Origin is ours;
    or, under `Referrer-Policy: no-referrer`, a browser sends `Origin: null` for a form
    POST even to its own origin, and then its `Sec-Fetch-Site` (which no page can set)
    must say same-origin."""
    origin = headers.get("origin", "").lower()
    if origin in origins:
        return True
    return origin in ("", "null") and headers.get("sec-fetch-site", "") == "same-origin"


class Guard:
    """ASGI middleware: the Host check on every request, the Origin check on every
    unsafe one, and the security headers on every answer."""

    def __init__(self, app: Any, allowed: Callable[[], tuple[set[str], set[str]]]) -> None:
        self.app = app
        self.allowed = allowed  # read per request: a random port is known after binding

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        hosts, origins = self.allowed()
        problem = ""
        length = headers.get("content-length", "0")
        if not length.isdigit() or int(length) > MAX_BODY:
            problem = "This request is too large for the console: refused, nothing changed."
        elif headers.get("host", "").lower() not in hosts:
            problem = "This console answers only at its own address (the Host header differs)."
        elif scope.get("method", "GET") not in ("GET", "HEAD") and not same_origin(
            headers, origins
        ):
            problem = "This form came from another site (its Origin is not this console's): refused, nothing changed."

        async def with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                extra = [(k.encode(), v.encode()) for k, v in HEADERS.items()]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        if problem:
            body = (
                "<!doctype html><title>Refused</title><main><h1>Refused</h1><p>"
                + problem
                + "</p></main>"
            ).encode()
            await with_headers(
                {
                    "type": "http.response.start",
                    "status": 403,
                    "headers": [
                        (b"content-type", b"text/html; charset=utf-8"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, with_headers)
