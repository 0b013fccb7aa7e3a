"""What every page served to a browser shares (the console, the credential page, the
one-approval page; docs/operate/threat-model.md): `Guard` refuses a foreign Host (DNS
rebinding), a foreign Origin on an unsafe request (CSRF) and a large body before the app
sees it (a chunked one as it streams), and puts one strict CSP on every answer; the
templates draw platform text with `contract.visible`; `serve` runs an app on a socket
bound first (its port known before the link is shown).
"""

from __future__ import annotations

import contextlib
import functools
import hmac
import socket
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import anyio

from gwanjong_shared.contract.visible import has_hidden, host, link, show

if TYPE_CHECKING:
    from jinja2 import Environment
    from starlette.applications import Starlette

#: the base template (console/templates/base.html) and stylesheet every page shares
SHARED = Path(__file__).parent / "console"
STATIC = SHARED / "static"

#: every answer's headers: no script but our own file, nothing framed, cached or referred
HEADERS = {
    "content-security-policy": (
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "cache-control": "no-store",
    "pragma": "no-cache",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}


#: the largest form a page accepts (an edited text is at most a few tens of KB)
MAX_BODY = 512 * 1024
TOO_LARGE = (
    f"This request is too large (over {MAX_BODY // 1024} KiB): refused, nothing changed. "
    "Send a shorter text."
)


class BodyTooLarge(Exception):
    """Raised to the app from `receive` once a streamed body passes MAX_BODY."""


def origins_for(host: str, port: int) -> tuple[set[str], set[str]]:
    """The Host values and Origins of a page bound at ``host:port``: its own address,
    and ``localhost`` as well when that address is loopback."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    names = {shown}
    if host in ("127.0.0.1", "::1", "localhost"):
        names |= {"127.0.0.1", "localhost", "[::1]"}
    hosts = {f"{n}:{port}" for n in names}
    return hosts, {f"http://{h}" for h in hosts}


def same_origin(headers: dict[str, str], origins: set[str]) -> bool:
    """Whether an unsafe request comes from our own origin: its Origin, or (`Origin: null`,
    sent under `no-referrer`) its `Sec-Fetch-Site`, which no page can set."""
    origin = headers.get("origin", "").lower()
    if origin in origins:
        return True
    return origin in ("", "null") and headers.get("sec-fetch-site", "") == "same-origin"


def form_token_ok(given: object, expected: str) -> bool:
    """Whether a form's CSRF token is the one its page was given (in constant time): every
    form of every page carries one, besides the Guard's Origin check."""
    return isinstance(given, str) and hmac.compare_digest(given.encode(), expected.encode())


class Guard:
    """ASGI middleware: the Host check, the Origin check on unsafe requests, the body's
    size, the security headers. ``misdirected``: the status of a wrong Host."""

    def __init__(
        self,
        app: Any,
        allowed: Callable[[], tuple[set[str], set[str]]],
        misdirected: int = 403,
    ) -> None:
        self.app = app
        self.allowed = allowed  # read per request: a random port is known after binding
        self.misdirected = misdirected

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        hosts, origins = self.allowed()
        problem, status = "", 403
        length = headers.get("content-length", "0")
        if not length.isdigit() or int(length) > MAX_BODY:
            problem, status = TOO_LARGE, 413  # as a chunked body over it is answered
        elif headers.get("host", "").lower() not in hosts:
            problem = "This page answers only at its own address (the Host header differs)."
            status = self.misdirected
        elif scope.get("method", "GET") not in ("GET", "HEAD") and not same_origin(
            headers, origins
        ):
            problem = "This form came from another site (its Origin is not this page's): refused, nothing changed."
        started, over, received = False, False, 0

        async def with_headers(message: Any) -> None:
            nonlocal started
            if over:  # the 413 is sent: whatever the app answers after is dropped
                return
            if message["type"] == "http.response.start":
                started = True
                extra = [(k.encode(), v.encode()) for k, v in HEADERS.items()]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        async def refuse(problem: str, status: int) -> None:
            from starlette.responses import HTMLResponse

            page = f"<!doctype html><title>Refused</title><main><h1>Refused</h1><p>{problem}</p></main>"
            await HTMLResponse(page, status)(scope, receive, with_headers)

        async def counted() -> Any:
            # A chunked body has no Content-Length: count it as it comes, read none past it.
            nonlocal over, received
            if not over:
                message = await receive()
                if message["type"] != "http.request":
                    return message
                received += len(message.get("body", b""))
                if received <= MAX_BODY:
                    return message
                if not started:
                    await refuse(TOO_LARGE, 413)
                over = True
            raise BodyTooLarge

        if problem:
            await refuse(problem, status)
            return
        with contextlib.suppress(BodyTooLarge):
            await self.app(scope, counted, with_headers)


@functools.lru_cache(maxsize=1024)  # a page asks again for the same link (its checks are slow)
def safe_url(url: str | None) -> str:
    """``url`` if it is an absolute http(s) link without hidden characters, else ""."""
    if not url or len(url) > 2000:
        return ""
    candidate = url.strip()
    if has_hidden(candidate) or any(c.isspace() for c in candidate):
        return ""
    try:
        parts = urlsplit(candidate)
    except ValueError:
        return ""
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return ""
    return candidate


@functools.cache
def templates(*own: Path) -> Environment:
    """A page's templates (``own`` folders first), able to extend the shared base."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(
        loader=FileSystemLoader([*own, SHARED / "templates"]),
        # the package's own files: compiled once, never stat-ed again on each page
        auto_reload=False,
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    # platform and outgoing text: each hidden character a visible mark, nothing cut
    env.filters.update(visible=visible, safe_url=safe_url, link=link, host=host)  # pyright: ignore[reportUnknownMemberType]
    env.globals.update(show=show)  # pyright: ignore[reportUnknownMemberType]
    return env


def app(
    routes: list[Any], allowed: Callable[[], tuple[set[str], set[str]]], misdirected: int = 403
) -> Starlette:
    """``routes`` and the shared static files, behind `Guard`."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.routing import Mount
    from starlette.staticfiles import StaticFiles

    static = Mount("/static", StaticFiles(directory=STATIC), name="static")
    guard = Middleware(Guard, allowed=allowed, misdirected=misdirected)
    return Starlette(routes=[static, *routes], middleware=[guard])


def visible(text: str | None) -> str:
    """Platform or outgoing text drawn whole: each hidden character a visible mark."""
    return show(text or "").text


async def serve(app: Any, sock: socket.socket) -> None:
    """Serve ``app`` on ``sock`` (bound and listening) until cancelled; no access log, no
    server header, no X-Forwarded-* believed."""
    import uvicorn

    class Quiet(uvicorn.Server):
        # The process's signals belong to whoever runs us (the gateway, the CLI loop).
        @contextlib.contextmanager
        def capture_signals(self) -> Generator[None, None, None]:
            yield

    config = uvicorn.Config(
        app,
        # uvicorn's own logging config would give its loggers a stderr handler of their
        # own, past our secret masking and one-line messages: they go to ours instead
        log_config=None,
        log_level="warning",
        lifespan="off",
        access_log=False,
        server_header=False,
        date_header=False,
        # No X-Forwarded-* is believed: behind a TLS proxy, `[console] public_url` says
        # the scheme and address, so no request header can make itself https or ours.
        proxy_headers=False,
    )
    server = Quiet(config)
    try:
        await server.serve(sockets=[sock])
    except anyio.get_cancelled_exc_class():
        server.should_exit = True
        with anyio.CancelScope(shield=True), anyio.move_on_after(5):
            await server.shutdown(sockets=[sock])
        raise
    finally:
        sock.close()
