"""The console's Starlette app over one `Gateway`: sign-in, sessions, rendering, routes
(the pages: `pages`, `health_pages`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from gwanjong_gateway import web
from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.console.guard import Scope, Session, Sessions, public_origin
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.record.readers import EVERYONE, Reader
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import Approval
from gwanjong_gateway.team.access_tokens import TokenError, digest, store_for
from gwanjong_gateway.usage.log import UsageLog
from gwanjong_shared.contract.visible import line

if TYPE_CHECKING:
    from fastmcp.server.auth import TokenVerifier

Page = Callable[["Console", Request, Session], Awaitable[Response]]


def when(at: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at)) if at else ""


def redirect(path: str) -> Response:
    return RedirectResponse(path, status_code=303)


class Refusal(Exception):
    """A request refused before anything changed (status, message for the page)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Console:
    def __init__(
        self,
        gw: Gateway,
        host: str = "127.0.0.1",
        port: int = 0,
        clock: Callable[[], float] = time.time,
        usage: UsageLog | None = None,
    ) -> None:
        self.gw = gw
        self.config: GatewayConfig = gw.config
        self.host = host
        self.port = port  # set to the bound port once listening (0: random)
        self.clock = clock
        self.sessions = Sessions(self.config.console.session_s, clock)
        self._usage = usage
        tokens = self.config.auth.mode == "tokens"  # sessions are checked against its file
        self._tokens = store_for(self.config.state_dir) if tokens else None
        #: the sign-in form's verifier, built once: a JWT verifier keeps the JWKS it fetched
        self._verifier: TokenVerifier | None = None
        #: the usage page's last figures per reader: (when read, report)
        self.usage_cache: dict[str, tuple[float, dict[str, Any]]] = {}
        #: background reads of the usage log under way, per reader
        self.usage_reading: dict[str, asyncio.Task[Any]] = {}

    # -- addresses and sign-in -----------------------------------------------------------

    @property
    def team(self) -> bool:
        return self.config.auth.mode != "none"

    def allowed(self) -> tuple[set[str], set[str]]:
        hosts, origins = web.origins_for(self.host, self.port)
        public_hosts, public = public_origin(self.config.console.public_url)
        return hosts | public_hosts, origins | public

    @property
    def secure(self) -> bool:
        """Served over https (by a TLS-terminating proxy at `public_url`): the cookie is
        `Secure`. Said by the config, never by a request header."""
        return self.config.console.public_url.startswith("https://")

    def base_url(self) -> str:
        if self.config.console.public_url:  # links lead through the proxy
            return self.config.console.public_url
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{shown}:{self.port}"

    def signin_link(self, then: str = "") -> str:
        """A new one-time sign-in link for the operator (leading to ``then``, a path)."""
        return f"{self.base_url()}/signin/{self.sessions.new_link(then)}"

    def take_approval_links(self) -> None:
        """URL-mode elicitation points at the console's approval page (an approval link), for a
        console without `[auth]` that listens; in team mode the one-approval page stays."""
        fallback = self.gw.approval_page
        if self.team or fallback is None:
            return

        async def link(approval: Approval, token: str) -> str:
            if not self.port:  # not listening yet: the one-approval page
                return await fallback(approval, token)
            minted = self.sessions.approval_link(approval.id, approval.digest)
            return f"{self.base_url()}/signin/{minted}"

        self.gw.approval_page = link

    @property
    def cookie(self) -> str:  # cookies are not per port: two consoles must not share one
        return f"gwanjong_console_{self.port}"

    # -- who is asking -------------------------------------------------------------------

    def reader(self, session: Session) -> Reader:
        """Whose records ``session`` reads: everyone's for the operator and `[auth] auditors`."""
        if session.principal is None:
            return EVERYONE
        return Reader.signed_in(session.principal, self.config.auth.auditors)

    def approvals_of(self, session: Session) -> str | None:
        """Whose approvals ``session`` sees (None: everyone's, for the operator and approvers),
        as status and `gwanjong://approvals` scope the waiting ones."""
        return self.reader(session).approvals(self.config.review.approvers)[0]

    def owner(self, session: Session) -> str | None:
        """Whose hand-offs and history ``session`` reads (None: everyone's; a principal no
        row has when it names nobody, so it fails closed)."""
        reader = self.reader(session)
        return None if reader.everyone else (reader.principal or "\x00")

    async def pending(self, session: Session, now: float) -> list[Approval]:
        """The approvals waiting that ``session`` sees."""
        principal = self.approvals_of(session)
        return await self.gw.records.run(
            StrikeStore.approvals, now, pending=True, principal=principal, limit=200
        )

    def usage(self) -> UsageLog:
        if self._usage is None:
            from gwanjong_gateway.usage.log import open_usage

            self._usage = open_usage(self.config, self.gw.environ)
        return self._usage

    # -- rendering -----------------------------------------------------------------------

    def render(
        self, name: str, session: Session | None, status: int = 200, **values: Any
    ) -> Response:
        # pages hand the records themselves; the templates draw each field with `line` (one
        # line, cut), `show` (whole, hidden characters marked) and `when`
        page = web.templates().get_template(name)
        html = page.render(session=session, team=self.team, line=line, when=when, **values)
        return HTMLResponse(html, status_code=status)

    def refused(self, status: int, message: str, session: Session | None = None) -> Response:
        return self.render("notice.html", session, status, heading="Refused", message=message)

    def signin_hint(self, message: str, status: int = 200) -> Response:
        """Not signed in: ``message`` says how (and, in team mode, the token form)."""
        return self.render("notice.html", None, status, heading="Not signed in", message=message)

    async def form(self, request: Request, session: Session) -> dict[str, str]:
        """The POSTed form, once its CSRF token is the session's (else Refusal)."""
        data = await request.form(max_files=0, max_fields=20, max_part_size=64 * 1024)
        fields = {k: v for k, v in data.items() if isinstance(v, str)}
        if not web.form_token_ok(fields.get("csrf"), session.csrf):
            raise Refusal(
                403,
                "This form's CSRF token is missing or wrong: refused, nothing changed. Reload the page and try again.",
            )
        return fields

    def signed_in(self, page: Page) -> Callable[[Request], Awaitable[Response]]:
        """A route that needs a session; without one, the way to sign in."""

        async def route(request: Request) -> Response:
            session = self.sessions.get(request.cookies.get(self.cookie))
            if session is not None and not self._token_holds(session):
                self.sessions.end(session.id)
                session = None
            if session is None:
                how = (
                    "Sign in on /signin with your token, or run `gwanjong console` for a new link."
                    if self.team
                    else "Run `gwanjong console` again for a new sign-in link."
                )
                return self.signin_hint(how, 401)
            try:
                if session.scope is not None:
                    await self._in_scope(request, session.scope)
                return await page(self, request, session)
            except Refusal as exc:
                return self.refused(exc.status, exc.message, session)

        return route

    def _token_holds(self, session: Session) -> bool:
        """A session a team token was exchanged for ends once it is revoked, as over MCP."""
        if session.token_sha256 is None or self._tokens is None:
            return True
        try:
            return self._tokens.is_active(session.token_sha256)
        except TokenError:  # a damaged token file lets nobody in
            return False

    async def _in_scope(self, request: Request, scope: Scope) -> None:
        """An approval link's session makes only requests about its approval (else Refusal)."""
        if request.url.path == "/signout":
            return
        if request.url.path not in scope.paths:
            raise Refusal(
                403,
                f"This link opens approval {scope.approval_id} only: nothing else here. Run "
                "`gwanjong console` in a terminal for the whole console.",
            )
        found = await self.gw.records.run(StrikeStore.approval, scope.approval_id)
        if found is None or (found.digest != scope.digest and found.open_at(self.clock())):
            raise Refusal(
                403,
                f"Approval {scope.approval_id} is not the one this link was made for: "
                "refused, nothing changed. Run `gwanjong review list` in a terminal.",
            )

    # -- sign-in routes ------------------------------------------------------------------

    async def link_signin(self, request: Request) -> Response:
        redeemed = self.sessions.redeem(str(request.path_params["token"]))
        if redeemed is None:
            return self.refused(
                403,
                "This sign-in link was used already, has expired or was never issued. "
                "Run `gwanjong console` again for a new one.",
            )
        return self._enter(*redeemed)

    async def token_form(self, request: Request) -> Response:
        if not self.team:
            return self.refused(404, "Sign in with the link `gwanjong console` printed.")
        if request.method == "GET":
            return self.render("signin.html", None)
        data = await request.form(max_files=0, max_fields=5, max_part_size=16 * 1024)
        token = data.get("token")
        secret = token.strip() if isinstance(token, str) else ""
        from gwanjong_gateway.team.auth import build_auth, principal_of

        if self._verifier is None:  # one per console, never one JWKS fetch per attempt
            self._verifier = cast("TokenVerifier", build_auth(self.config))
        access = await self._verifier.verify_token(secret) if secret else None
        if access is None:
            return self.render(
                "signin.html", None, status=403, error="That token is wrong, expired or revoked."
            )
        name = principal_of(access.subject or access.client_id or "")
        if name is None:  # the verifier refuses it first; one name per person, or none
            return self.render("signin.html", None, status=403, error="That token names nobody.")
        ttl = self.config.console.session_s
        if access.expires_at is not None:  # a JWT: no longer than MCP would accept it
            ttl = min(ttl, access.expires_at + self.config.auth.leeway_s - self.clock())
        session = self.sessions.start(name, name, ttl_s=ttl)
        if self._tokens is not None:  # a team token: the session lasts while it does
            session.token_sha256 = digest(secret)
        return self._enter(session)

    def _enter(self, session: Session, then: str = "/approvals") -> Response:
        response = redirect(then)
        response.set_cookie(
            self.cookie,
            session.id,
            max_age=max(1, int(session.expires_at - self.clock())),
            httponly=True,
            secure=self.secure,
            samesite="strict",
            path="/",
        )
        return response

    async def signout(self, request: Request, session: Session) -> Response:
        await self.form(request, session)
        self.sessions.end(session.id)
        response = redirect("/signed-out")
        response.delete_cookie(self.cookie, path="/", secure=self.secure, httponly=True)
        return response

    async def signed_out(self, request: Request) -> Response:
        return self.signin_hint("You are signed out.")
