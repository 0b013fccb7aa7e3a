"""Who may use the console, and what a request must carry (docs/use/console.md,
docs/operate/threat-model.md): sign-in links and team tokens become server-side sessions
(HttpOnly, SameSite=Strict); an approval link opens that one approval, never the console.
Host, Origin and CSRF are checked on every request; a refusal changes nothing.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from gwanjong_gateway.rules.approvals import operator_name, token_hash

#: how long an approval link (sent to a URL-mode client) and its session are good
APPROVAL_LINK_S = 15 * 60.0
#: how long an unused sign-in link is good: it may be read later where it was printed (the
#: gateway's console writes it to stderr, which an MCP client keeps in its log)
SIGNIN_LINK_S = 15 * 60.0


@dataclass(frozen=True)
class Scope:
    """All an approval link's session may open: one approval, while its digest is this."""

    approval_id: int
    digest: str

    @property
    def path(self) -> str:
        return f"/approvals/{self.approval_id}"

    @property
    def paths(self) -> tuple[str, str]:
        """Where the session may go: the link's page and its own forms and Edit link, which
        name the approval a7 (rules/refs.py)."""
        return self.path, f"/approvals/a{self.approval_id}"


@dataclass
class Session:
    """A signed-in person. ``principal`` None: the operator, who reads and decides everything,
    unless ``scope`` confines the session to one approval (an approval link's)."""

    id: str
    name: str
    principal: str | None
    csrf: str
    expires_at: float
    scope: Scope | None = None
    #: the team token it was exchanged for, as tokens.json keeps it: it lasts while that does
    token_sha256: str | None = None


@dataclass(frozen=True)
class _Link:
    expires_at: float
    then: str
    scope: Scope | None


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
        life = min(self.ttl_s, SIGNIN_LINK_S)
        return self._mint(_Link(self.clock() + life, then or "/approvals", None))

    def approval_link(self, approval_id: int, digest: str) -> str:
        """A one-time token whose session opens approval ``approval_id`` only, while its
        digest is ``digest``, for `APPROVAL_LINK_S`: what a URL-mode client is sent."""
        scope = Scope(approval_id, digest)
        return self._mint(_Link(self.clock() + APPROVAL_LINK_S, scope.path, scope))

    def _mint(self, link: _Link) -> str:
        token = secrets.token_urlsafe(32)
        self._drop_expired()
        self._links[token_hash(token)] = link
        return token

    def redeem(self, token: str) -> tuple[Session, str] | None:
        """The session of a link token, which is then void (the operator's, or an approval
        link's confined one), and the page it leads to; None if unknown, used or expired."""
        link = self._links.pop(token_hash(token), None)
        if link is None or link.expires_at <= self.clock():
            return None
        ttl_s = APPROVAL_LINK_S if link.scope is not None else None
        # one name on every channel
        return self.start(operator_name(), None, link.scope, ttl_s), link.then

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
        self._sessions[token_hash(session.id)] = session
        return session

    def get(self, session_id: str | None) -> Session | None:
        if not session_id:
            return None
        session = self._sessions.get(token_hash(session_id))
        if session is None or session.expires_at <= self.clock():
            return None
        return session

    def end(self, session_id: str) -> None:
        self._sessions.pop(token_hash(session_id), None)

    def _drop_expired(self) -> None:
        now = self.clock()
        self._sessions = {k: s for k, s in self._sessions.items() if s.expires_at > now}
        self._links = {k: link for k, link in self._links.items() if link.expires_at > now}


def public_origin(url: str) -> tuple[set[str], set[str]]:
    """The Host values and Origin of `[console] public_url` (what a TLS-terminating
    proxy serves; "" adds none). A proxy may pass the public Host on or its own."""
    if not url:
        return set(), set()
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}[parts.scheme]
    host = parts.netloc.lower()
    bare = host.rpartition(":")[0] if parts.port == default else host
    # at the default port a browser's Host may name it, or not; its Origin never does
    hosts = {bare, f"{bare}:{default}"} if parts.port in (None, default) else {host}
    return hosts, {f"{parts.scheme}://{bare}"}
