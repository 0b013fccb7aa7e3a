"""Where the SDKs' requests may go, and (for the loopback sandbox) where they are sent instead.

Both SDKs hard-code absolute ``https://`` URLs (tweepy ``api.twitter.com``, twikit ``x.com``,
``api.x.com``, ``twitter.com``, ``abs.twimg.com``), so the only seam is the HTTP session:

- tweepy's AsyncClient takes an ``aiohttp.ClientSession``; ours carries :class:`AiohttpGate`, a
  client middleware (aiohttp >= 3.12);
- twikit's ``Client.http`` is an ``httpx.AsyncClient``; ours gets :class:`HttpxGate` as its
  transport, assigned *after* construction (twikit's ``proxy`` setter replaces any transport
  passed to its constructor, platform-wire.md §4b).

Each gate allows only the hosts its SDK is expected to contact: anything else raises
:class:`UnexpectedHost` before a byte leaves the machine. With a target URL the gate rewrites
scheme, host and port and keeps the original ``Host`` header (the sandbox routes by it), so
nothing reaches X. Each gate also reads X's ``x-rate-limit-*`` headers from every answer.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import aiohttp
import httpx
from yarl import URL

API_HOSTS = frozenset({"api.twitter.com", "api.x.com"})
WEB_HOSTS = frozenset({"x.com", "api.x.com", "twitter.com", "abs.twimg.com"})


class UnexpectedHost(RuntimeError):
    """A request to a host this server never talks to (the gate refused to send it)."""


@dataclass
class Budget:
    """What X last said about one endpoint's window."""

    limit: int | None = None
    remaining: int | None = None
    reset: int | None = None  # epoch seconds

    def exhausted(self, now: float | None = None) -> float | None:
        """Seconds until the window resets when nothing is left in it, else None."""
        if self.remaining is None or self.reset is None or self.remaining > 0:
            return None
        wait = self.reset - (time.time() if now is None else now)
        return wait if wait > 0 else None


def route_key(method: str, path: str) -> str:
    """``GET /2/tweets/123`` -> ``GET /2/tweets/:id``; GraphQL operations by name."""
    path = path.rstrip("/") or "/"
    graphql = re.match(r"^/i/api/graphql/[^/]+/(\w+)$", path)
    if graphql:
        return f"{method} graphql/{graphql.group(1)}"
    if path.startswith("/2/"):  # API v2: every number after the version is an id
        return f"{method} /2" + re.sub(r"/\d+(?=/|$)", "/:id", path[2:])
    return f"{method} " + re.sub(r"/\d{2,}(?=/|$)", "/:id", path)


class RateLimits:
    """x-rate-limit-* per endpoint, from every answer (errors included)."""

    def __init__(self) -> None:
        self.budgets: dict[str, Budget] = {}

    def observe(self, method: str, path: str, headers: object) -> None:
        get = getattr(headers, "get", None)
        if get is None:
            return
        values = [get(f"x-rate-limit-{k}") for k in ("limit", "remaining", "reset")]
        if not any(values):
            return
        try:
            limit, remaining, reset = (int(v) if v is not None else None for v in values)
        except ValueError:
            return
        self.budgets[route_key(method, path)] = Budget(limit, remaining, reset)

    def wait_for(self, method: str, path: str) -> float | None:
        budget = self.budgets.get(route_key(method, path))
        return budget.exhausted() if budget else None


class AiohttpGate:
    """aiohttp client middleware: allow-list, optional redirect, rate-limit bookkeeping."""

    def __init__(self, allowed: frozenset[str], target: str | None, limits: RateLimits) -> None:
        self.allowed = allowed
        self.target = URL(target) if target else None
        self.limits = limits

    async def __call__(
        self, req: aiohttp.ClientRequest, handler: aiohttp.ClientHandlerType
    ) -> aiohttp.ClientResponse:
        host = (req.url.host or "").lower()
        if host not in self.allowed:
            raise UnexpectedHost(host)
        path = req.url.path
        if self.target is not None:
            req.headers["X-Sandbox-Original-Host"] = host
            req.url = (
                req.url.with_scheme(self.target.scheme)
                .with_host(self.target.host or "127.0.0.1")
                .with_port(self.target.port)
            )
        response = await handler(req)
        self.limits.observe(req.method, path, response.headers)
        return response


class HttpxGate(httpx.AsyncBaseTransport):
    """httpx transport: allow-list, optional redirect, rate-limit bookkeeping."""

    def __init__(
        self,
        allowed: frozenset[str],
        target: str | None,
        limits: RateLimits,
        inner: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.allowed = allowed
        self.target = httpx.URL(target) if target else None
        self.limits = limits
        self.inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host.lower()
        if host not in self.allowed:
            raise UnexpectedHost(host)
        path = request.url.path
        if self.target is not None:
            # A new request: httpx keeps the original one on the response, so cookies are
            # stored for the real (https, x.com) URL, and the Host header stays x.com.
            url = request.url.copy_with(
                scheme=self.target.scheme, host=self.target.host, port=self.target.port
            )
            request = httpx.Request(
                request.method,
                url,
                headers=request.headers,
                stream=request.stream,
                extensions=request.extensions,
            )
        response = await self.inner.handle_async_request(request)
        self.limits.observe(request.method, path, response.headers)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()
