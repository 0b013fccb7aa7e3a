"""The Forem v1 REST client: one paced httpx request at a time, answers as JSON, errors as
the contract's. The adapter and the inbox (mentions.py) both read through it."""

from __future__ import annotations

import html
import re
from typing import Any

import httpx

from gwanjong_devto.settings import Settings
from gwanjong_shared.contract import errors
from gwanjong_shared.kit.http import raise_for_response, transport_error
from gwanjong_shared.kit.once import (
    HTTPX_NEVER_LEFT,
    answer_lost,
    lost_answer,
    may_resend,
    unreadable_answer,
)
from gwanjong_shared.kit.ratelimit import Limiter
from gwanjong_shared.kit.tracing import traced_request

PLATFORM = "devto"
LABEL = "Dev.to"
V1_ACCEPT = "application/vnd.forem.api-v1+json"
_TAGS_HTML = re.compile(r"<[^>]+>")


def html_text(body_html: str) -> str:
    """An HTML field of the API (an article's or a comment's body) as plain text."""
    return html.unescape(_TAGS_HTML.sub("", body_html)).strip()


class DevtoClient:
    def __init__(
        self, settings: Settings, limiter: Limiter, transport: httpx.AsyncBaseTransport | None
    ) -> None:
        self.settings = settings
        self.limiter = limiter
        self._transport = transport
        self._http: httpx.AsyncClient | None = None
        self._account: str | None = None

    def is_configured(self) -> bool:
        return self.settings.api_key is not None

    async def connect(self) -> None:
        headers = {"accept": V1_ACCEPT, "user-agent": "gwanjong-devto/0.1"}
        if self.settings.api_key is not None:
            headers["api-key"] = self.settings.api_key.get_secret_value()
        self._http = httpx.AsyncClient(
            base_url=self.settings.base_url.rstrip("/"),
            headers=headers,
            timeout=self.settings.timeout_s,
            transport=self._transport,
        )

    async def close(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def request(self, method: str, path: str, *, what: str | None = None, **kw: Any) -> Any:
        """The JSON answer of one request, paced; a failure raised as a PlatformError."""
        if self._http is None:
            await self.connect()
        assert self._http is not None
        # Rack::Attack throttles reads and writes separately: one window each.
        key = "read" if method == "GET" else "write"
        self.limiter.check(key)
        async with self.limiter.paced(write=method != "GET"):
            try:
                response = await traced_request(self._http, method, path, **kw)
            except httpx.HTTPError as exc:
                # httpx sends each request once; a write's lost answer is unsure (kit/once.py)
                left = not isinstance(exc, HTTPX_NEVER_LEFT)
                lost = answer_lost(method, path, error=exc, left=left)
                raise (lost_answer(LABEL, lost) if lost else transport_error(exc, LABEL)) from None
        self.limiter.observe(key, response.status_code, response.headers)
        lost = answer_lost(method, path, status=response.status_code)
        if lost is not None:
            raise lost_answer(LABEL, lost)
        raise_for_response(response, LABEL, what=what)
        try:
            return response.json()
        except ValueError:
            if not may_resend(method):  # the write was answered: it may have been written
                raise unreadable_answer(LABEL) from None
            raise errors.unavailable(
                f"{LABEL} sent a reply that is not JSON. Try again later."
            ) from None

    async def account(self) -> str | None:
        """Our username (None without an API key), read once."""
        if not self.is_configured():
            return None
        if self._account is None:
            me = await self.request("GET", "/api/users/me")
            self._account = str(me.get("username") or "") or None
        return self._account
