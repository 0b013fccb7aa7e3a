"""What every asyncpraw HTTP request passes through: host allow-list, pacing, our timeout,
Reddit's rate headers, and our 5xx retry schedule, for reads only: a write is sent once
(kit/once.py), its 5xx or lost connection raised as ``AnswerLost``, which asyncprawcore
does not retry."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from asyncprawcore.exceptions import BadJSON, RequestException
from asyncprawcore.requestor import Requestor
from asyncprawcore.sessions import FiniteRetryStrategy, Session

from gwanjong_reddit.settings import Settings
from gwanjong_shared.contract.models import RateLimit
from gwanjong_shared.kit.host_gate import HostAllowList, HostNotAllowed
from gwanjong_shared.kit.once import AnswerLost, answer_lost, may_resend
from gwanjong_shared.kit.ratelimit import ANY, Limiter, MinInterval, TokenBucket
from gwanjong_shared.kit.tracing import http_span, set_status


class Gate:
    """What every HTTP request passes through: host check, pacing, timeout, budget."""

    def __init__(self, settings: Settings) -> None:
        self.timeout_s = settings.timeout_s
        self.hosts = HostAllowList(
            urlsplit(u).hostname or "" for u in (settings.api_url, settings.token_url)
        )
        # Reddit's budget is per account, whatever the endpoint: one window (ANY).
        self.limiter = Limiter(
            "Reddit",
            reads=TokenBucket(settings.requests_per_minute, 60.0),
            writes=MinInterval(settings.write_interval_s),
        )
        self.forbidden: dict[int, str] = {}  # id(response) -> Reddit's reason for a 403
        self.edge: set[int] = set()  # id(response) of a 403 without Reddit's JSON: the CDN's

    @property
    def rate_limit(self) -> RateLimit:
        """What Reddit last said about our budget (``x-ratelimit-*``)."""
        return self.limiter.windows.get(ANY, RateLimit())

    def check_host(self, url: str) -> None:
        self.hosts.check(urlsplit(url).hostname or "")

    async def observe(self, response: aiohttp.ClientResponse) -> None:
        self.limiter.observe(ANY, response.status, response.headers)
        if response.status == 403:
            # asyncprawcore raises Forbidden without reading the body; its reason
            # ("private", "quarantined", "gated") is what tells a closed subreddit from bad
            # credentials.
            try:
                body = await response.json(content_type=None)
            except (ValueError, aiohttp.ClientError):
                body = None
            if not isinstance(body, dict):  # empty or HTML: a block at the edge
                self.edge.add(id(response))
                return
            reason = body.get("reason")
            if isinstance(reason, str) and reason:
                self.forbidden[id(response)] = reason

    def wait_s(self) -> float:
        return self.limiter.wait_s(ANY)


class GatedRequestor(Requestor):
    """asyncprawcore's Requestor, with our bound, pacing and allow-list on every request."""

    def __init__(self, *, gate: Gate, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._gate = gate

    @asynccontextmanager
    async def request(  # same call shape as the SDK's; the timeout is ours
        self,
        *args: Any,
        timeout: float | None = None,  # noqa: ASYNC109 - the SDK's signature; ignored
        **kwargs: Any,
    ) -> AsyncIterator[aiohttp.ClientResponse]:
        url = str(args[1]) if len(args) > 1 else str(kwargs.get("url", ""))
        method = str(args[0]) if args else str(kwargs.get("method", "GET"))
        self._gate.check_host(url)
        await self._gate.limiter.pace()
        parts = urlsplit(url)
        headers: dict[str, str] = dict(kwargs.pop("headers", None) or {})
        # A span per request, its trace context in the headers (asyncprawcore merges them).
        with http_span(
            method, parts.scheme, parts.hostname or "", parts.port, parts.path, headers
        ) as span:
            lost: AnswerLost | None = None
            yielded, answered = False, 0
            try:
                # asyncprawcore always passes its module constant (16 s); ours is the setting.
                async with super().request(
                    *args, timeout=self._gate.timeout_s, headers=headers, **kwargs
                ) as response:
                    set_status(span, response.status)
                    await self._gate.observe(response)
                    # A write's 5xx never reaches asyncprawcore, which would resend it;
                    # nor its 408, which asyncprawcore resends too (RETRY_STATUSES).
                    lost = answer_lost(
                        method, parts.path, status=response.status, headers=response.headers
                    )
                    retried = response.status in Session.RETRY_STATUSES
                    if lost is None and retried and not may_resend(method):
                        lost = AnswerLost(method, parts.path, status=response.status)
                    if lost is None:
                        yielded, answered = True, response.status
                        yield response
            except (RequestException, BadJSON) as exc:
                original = getattr(exc, "original_exception", exc)
                unreadable = (aiohttp.ClientResponseError, aiohttp.ClientPayloadError)
                body_lost = isinstance(original, (*unreadable, TimeoutError, BadJSON))
                if yielded and (may_resend(method) or not body_lost):
                    raise  # the SDK's own handling of the answer, not the request
                if yielded:  # a write was answered, but its body was unreadable: lost
                    if isinstance(original, TimeoutError):
                        raise AnswerLost(method, parts.path, timed_out=True) from exc
                    raise AnswerLost(method, parts.path, status=answered) from exc
                never_left = (aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError)
                left = not isinstance(original, (*never_left, HostNotAllowed))
                lost = answer_lost(method, parts.path, error=original, left=left)
                if lost is None:
                    raise
                raise lost from exc
            if lost is not None:
                raise lost


def retry_strategy(count: int, backoff_s: float) -> type[FiniteRetryStrategy]:
    """asyncprawcore's finite retries with our count and backoff (0-b, then b-2b, ...).
    It sees only reads' failures: the requestor raises a write's as ``AnswerLost``."""

    class Retry(FiniteRetryStrategy):
        def __init__(self, retries: int = count) -> None:
            super().__init__(retries=retries)

        def _sleep_seconds(self) -> float | None:
            if self.retries >= count:
                return None
            attempt = count - self.retries
            return backoff_s * (attempt - 1 + random.random())

        def consume_available_retry(self) -> FiniteRetryStrategy:
            return type(self)(retries=self.retries - 1)

    return Retry
