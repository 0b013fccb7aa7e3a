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
nothing reaches X. Each gate also hands every answer's headers (``x-rate-limit-*``,
``Retry-After``) to the shared :class:`Limiter`, per endpoint.
"""

from __future__ import annotations

import re

import aiohttp
import httpx
from yarl import URL

from gwanjong_shared.ratelimit import Limiter

API_HOSTS = frozenset({"api.twitter.com", "api.x.com"})
WEB_HOSTS = frozenset({"x.com", "api.x.com", "twitter.com", "abs.twimg.com"})


class UnexpectedHost(RuntimeError):
    """A request to a host this server never talks to (the gate refused to send it)."""


def route_key(method: str, path: str) -> str:
    """``GET /2/tweets/123`` -> ``GET /2/tweets/:id``; GraphQL operations by name."""
    path = path.rstrip("/") or "/"
    graphql = re.match(r"^/i/api/graphql/[^/]+/(\w+)$", path)
    if graphql:
        return f"{method} graphql/{graphql.group(1)}"
    if path.startswith("/2/"):  # API v2: every number after the version is an id
        return f"{method} /2" + re.sub(r"/\d+(?=/|$)", "/:id", path[2:])
    return f"{method} " + re.sub(r"/\d{2,}(?=/|$)", "/:id", path)


class AiohttpGate:
    """aiohttp client middleware: allow-list, optional redirect, rate-limit bookkeeping."""

    def __init__(self, allowed: frozenset[str], target: str | None, limiter: Limiter) -> None:
        self.allowed = allowed
        self.target = URL(target) if target else None
        self.limiter = limiter

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
        self.limiter.observe(route_key(req.method, path), response.status, response.headers)
        return response


class HttpxGate(httpx.AsyncBaseTransport):
    """httpx transport: allow-list, optional redirect, rate-limit bookkeeping."""

    def __init__(
        self,
        allowed: frozenset[str],
        target: str | None,
        limiter: Limiter,
        inner: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.allowed = allowed
        self.target = httpx.URL(target) if target else None
        self.limiter = limiter
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
        self.limiter.observe(
            route_key(request.method, path), response.status_code, response.headers
        )
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()
