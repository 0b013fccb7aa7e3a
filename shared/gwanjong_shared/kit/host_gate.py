"""The gate every platform server's HTTP passes through: only the hosts it is meant to
contact, and every answer's rate-limit headers handed to the shared Limiter.

An SDK follows redirects, a PDS named in a DID document, or its own hard-coded URLs: the
allow-list stops a request to any other host before a byte is sent (:class:`HostNotAllowed`).
:class:`GateTransport` is the httpx form (Bluesky, X's web API); SDKs on aiohttp wrap their
own hook around :class:`HostAllowList` (X's tweepy middleware, Reddit's requestor).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable

import httpx

from gwanjong_shared.kit.once import WriteOnce
from gwanjong_shared.kit.ratelimit import Limiter
from gwanjong_shared.kit.tracing import http_span, set_status

#: (method, path) -> the limiter key a request counts against
RouteKey = Callable[[str, str], str]


class HostNotAllowed(httpx.TransportError):
    """A request for a host outside the allow-list (nothing was sent)."""

    def __init__(self, host: str, request: httpx.Request | None = None) -> None:
        super().__init__(f"host {host!r} is not allowed", request=request)
        self.host = host


class HostAllowList:
    """Exact host names or fnmatch patterns (``*.host.bsky.network``), case-insensitive."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = frozenset(p.strip().lower() for p in patterns if p.strip())

    def allows(self, host: str) -> bool:
        host = host.lower()
        return any(fnmatch.fnmatchcase(host, pattern) for pattern in self.patterns)

    def check(self, host: str, request: httpx.Request | None = None) -> None:
        if not self.allows(host):
            raise HostNotAllowed(host.lower(), request)


class GateTransport(httpx.AsyncBaseTransport):
    """httpx transport: the allow-list, an optional redirect, rate-limit bookkeeping, a
    trace span per request (kit/tracing.py), and a write sent once (kit/once.py).

    With a ``target`` URL (the loopback sandbox) scheme, host and port are rewritten and the
    original ``Host`` header is kept (the sandbox routes by it), so nothing reaches the
    platform.
    """

    def __init__(
        self,
        allowed: HostAllowList,
        limiter: Limiter,
        key: RouteKey,
        *,
        target: str | None = None,
        inner: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.allowed = allowed
        self.limiter = limiter
        self.key = key
        self.target = httpx.URL(target) if target else None
        self.inner = WriteOnce(inner)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.allowed.check(request.url.host, request)
        u = request.url
        with http_span(request.method, u.scheme, u.host, u.port, u.path, request.headers) as span:
            response = await self._send(request)
            set_status(span, response.status_code)
            return response

    async def _send(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if self.target is not None:
            # A new request: httpx keeps the original one on the response, so cookies are
            # stored for the real URL, and the Host header stays the platform's.
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
        # Retry-After and the rate-limit headers, error answers included.
        self.limiter.observe(self.key(request.method, path), response.status_code, response.headers)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()
