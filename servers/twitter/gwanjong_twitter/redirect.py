"""Where the SDKs' requests may go, and (for the loopback sandbox) where they are sent instead.

Both SDKs hard-code absolute ``https://`` URLs (tweepy ``api.twitter.com``, twikit ``x.com``,
``api.x.com``, ``twitter.com``, ``abs.twimg.com``), so the only seam is the HTTP session:

- tweepy's AsyncClient takes an ``aiohttp.ClientSession``; ours carries :class:`AiohttpGate`, a
  client middleware (aiohttp >= 3.12);
- twikit's ``Client.http`` is an ``httpx.AsyncClient``; ours gets :func:`web_gate` (the
  shared ``GateTransport``) as its transport, assigned *after* construction (twikit's
  ``proxy`` setter replaces any transport passed to its constructor, platform-wire.md §4b).

Each gate allows only the hosts its SDK is expected to contact: anything else raises the
shared ``HostNotAllowed`` before a byte leaves the machine. With a target URL the gate rewrites
scheme, host and port and keeps the original ``Host`` header (the sandbox routes by it), so
nothing reaches X. Each gate also hands every answer's headers (``x-rate-limit-*``,
``Retry-After``) to the shared :class:`Limiter`, per endpoint, and sends a write once: a
write's 5xx or lost connection raises the kit's ``AnswerLost`` (kit/once.py), which no SDK
layer resends.
"""

from __future__ import annotations

import re

import aiohttp
from yarl import URL

from gwanjong_shared.kit.host_gate import GateTransport, HostAllowList
from gwanjong_shared.kit.once import answer_lost
from gwanjong_shared.kit.ratelimit import Limiter
from gwanjong_shared.kit.tracing import http_span, set_status

API_HOSTS = HostAllowList(["api.twitter.com", "api.x.com"])
WEB_HOSTS = HostAllowList(["x.com", "api.x.com", "twitter.com", "abs.twimg.com"])
#: aiohttp errors raised before a request left: nothing can have been written
AIOHTTP_NEVER_LEFT = (aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError)


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
    """aiohttp client middleware: allow-list, optional redirect, rate-limit bookkeeping, a
    trace span per request (tweepy's own transport is aiohttp: this is where we see it)."""

    def __init__(self, allowed: HostAllowList, target: str | None, limiter: Limiter) -> None:
        self.allowed = allowed
        self.target = URL(target) if target else None
        self.limiter = limiter

    async def __call__(
        self, req: aiohttp.ClientRequest, handler: aiohttp.ClientHandlerType
    ) -> aiohttp.ClientResponse:
        host = (req.url.host or "").lower()
        self.allowed.check(host)
        path = req.url.path
        url = req.url
        with http_span(req.method, url.scheme, host, url.port, path, req.headers) as span:
            response = await self._send(req, handler, host, path)
            set_status(span, response.status)
            return response

    async def _send(
        self, req: aiohttp.ClientRequest, handler: aiohttp.ClientHandlerType, host: str, path: str
    ) -> aiohttp.ClientResponse:
        if self.target is not None:
            req.headers["X-Sandbox-Original-Host"] = host
            req.url = (
                req.url.with_scheme(self.target.scheme)
                .with_host(self.target.host or "127.0.0.1")
                .with_port(self.target.port)
            )
        try:
            response = await handler(req)
        except (aiohttp.ClientError, TimeoutError) as exc:
            # aiohttp resends only idempotent methods; a write's lost answer is unsure.
            left = not isinstance(exc, AIOHTTP_NEVER_LEFT)
            lost = answer_lost(req.method, path, error=exc, left=left)
            if lost is None:
                raise
            raise lost from exc
        self.limiter.observe(route_key(req.method, path), response.status, response.headers)
        lost = answer_lost(req.method, path, status=response.status)
        if lost is not None:  # raised here, before tweepy sees a status it could retry on
            response.release()
            raise lost
        return response


def web_gate(target: str | None, limiter: Limiter) -> GateTransport:
    """twikit's transport: X's web hosts only, sent to ``target`` when one is set."""
    return GateTransport(WEB_HOSTS, limiter, route_key, target=target)
