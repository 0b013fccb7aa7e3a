"""Where Prometheus scrapes: `/metrics` behind `[auth]`, or its own 127.0.0.1 listener. The
figures name platforms and tools, so a scrape needs the same bearer token as MCP.
"""

from __future__ import annotations

import contextlib
import logging
import socket
from collections.abc import AsyncGenerator, Awaitable, Callable

import anyio
from fastmcp.server.auth import AuthProvider
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from gwanjong_gateway import web
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.observe.metrics import Metrics
from gwanjong_gateway.team.auth import WRONG_TOKEN, HashedTokenVerifier, challenge
from gwanjong_gateway.team.stream_watch import bearer_of

log = logging.getLogger(__name__)
PATH = "/metrics"
Handler = Callable[[Request], Awaitable[Response]]

#: what a scrape without a token, or with one refused, is told to do (tokens mode; JWT)
NO_TOKEN = (
    "The metrics need a bearer token: send `Authorization: Bearer <token>` with a gwanjong "
    "access token (an operator issues one with `gwanjong token add NAME`; give Prometheus "
    "its own, read from `authorization: {credentials_file: ...}`)."
)
NO_JWT = (
    "The metrics need a bearer token: send `Authorization: Bearer <token>` with an access "
    "token from the identity provider this gateway trusts (its `[auth] issuer`)."
)
REFUSED_JWT = (
    "The bearer token was refused (wrong, expired, or for another audience). Get a fresh "
    "access token from the identity provider this gateway trusts (its `[auth] issuer`) and "
    "send it as `Authorization: Bearer <token>`."
)


def handler(metrics: Metrics, gw: Gateway, auth: AuthProvider | None) -> Handler:
    """The scrape: the bearer token checked (when `auth`), the record's figures read, the
    exposition text answered."""

    async def scrape(request: Request) -> Response:
        if auth is not None:
            sent = bearer_of(request.scope)
            if sent is None or await auth.verify_token(sent) is None:
                said = _refusal(auth, sent)
                return JSONResponse(
                    {"error": "invalid_token", "error_description": said},
                    status_code=401,
                    # realm="gwanjong": already says what to do (HonestRefusal keeps it)
                    headers={"www-authenticate": challenge(said).decode()},
                )
        await metrics.refresh(gw)
        body, content_type = metrics.render()
        return Response(body, media_type=content_type)

    return scrape


def _refusal(auth: AuthProvider, sent: str | None) -> str:
    """What to do: get a token (and where from), or get another one."""
    if isinstance(auth, HashedTokenVerifier):
        return WRONG_TOKEN if sent else NO_TOKEN
    return REFUSED_JWT if sent else NO_JWT


@contextlib.asynccontextmanager
async def own_listener(scrape: Handler, sock: socket.socket) -> AsyncGenerator[None, None]:
    """Serve `scrape` at <sock>/metrics while the block runs (the socket is closed after)."""
    from starlette.routing import Route

    port = int(sock.getsockname()[1])
    # web.Guard: only a request to 127.0.0.1 itself, none to a name rebound to it
    allowed = web.origins_for("127.0.0.1", port)
    app = web.app([Route(PATH, scrape, methods=["GET"])], lambda: allowed)
    log.info("metrics at http://127.0.0.1:%d%s", port, PATH)
    with sock:
        async with anyio.create_task_group() as tg:
            tg.start_soon(web.serve, app, sock)
            try:
                yield
            finally:
                tg.cancel_scope.cancel()
