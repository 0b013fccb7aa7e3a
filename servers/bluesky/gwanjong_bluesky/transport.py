"""The HTTP transport under the atproto SDK: an allow-list of hosts, and rate headers read."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

import httpx

from gwanjong_shared.ratelimit import Limiter


class HostNotAllowed(httpx.TransportError):
    """The SDK tried to reach a host outside the allow-list (nothing was sent)."""

    def __init__(self, host: str, request: httpx.Request) -> None:
        super().__init__(f"host {host!r} is not allowed", request=request)
        self.host = host


class AllowListTransport(httpx.AsyncBaseTransport):
    """Sends only to the allowed hosts (exact names or fnmatch patterns); raises otherwise.

    The SDK follows the PDS named in the session's DID document and HTTP redirects: this keeps
    both from reaching a host nobody configured.
    """

    def __init__(
        self,
        allowed: Sequence[str],
        inner: httpx.AsyncBaseTransport | None = None,
        limiter: Limiter | None = None,
    ) -> None:
        self.allowed = tuple(p.strip().lower() for p in allowed if p.strip())
        self._inner = inner or httpx.AsyncHTTPTransport()
        self._limiter = limiter

    def allows(self, host: str) -> bool:
        host = host.lower()
        return any(fnmatch.fnmatchcase(host, pattern) for pattern in self.allowed)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        if not self.allows(host):
            raise HostNotAllowed(host, request)
        response = await self._inner.handle_async_request(request)
        if self._limiter is not None:  # ratelimit-* and Retry-After, errors included
            self._limiter.observe(
                limit_key(request.url.path), response.status_code, response.headers
            )
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def limit_key(path: str) -> str:
    """Which of our windows a request counts against: sign-ins, record writes, or reads."""
    method = path.rsplit("/", 1)[-1]
    if method in ("com.atproto.server.createSession", "com.atproto.server.refreshSession"):
        return "session"
    return "write" if method.startswith("com.atproto.repo.") else "read"
