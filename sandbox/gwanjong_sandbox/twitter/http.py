"""X's HTTP manners: OAuth 1.0a checks, problem+json errors, 429s, per-endpoint buckets."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from gwanjong_sandbox.twitter.model import (
    ACCESS_SECRET,
    ACCESS_TOKEN,
    API_HOSTS,
    API_KEY,
    API_SECRET,
    PROBLEM,
)


def _pct(value: str) -> str:
    return quote(value, safe="~")


def oauth1_params(header: str) -> dict[str, str] | None:
    if not header.startswith("OAuth "):
        return None
    params: dict[str, str] = {}
    for part in header[6:].split(","):
        key, _, value = part.strip().partition("=")
        params[unquote(key)] = unquote(value.strip('"'))
    return params


def oauth1_valid(request: Request, params: dict[str, str]) -> bool:
    """Check an HMAC-SHA1 signature the way X does, over the original https URL."""
    if params.get("oauth_consumer_key") != API_KEY or params.get("oauth_token") != ACCESS_TOKEN:
        return False
    if params.get("oauth_signature_method") != "HMAC-SHA1":
        return False
    host = request.headers.get("x-sandbox-original-host") or request.headers.get("host", "")
    host = host.split(":")[0].lower()
    if host not in API_HOSTS:
        host = "api.twitter.com"
    items = [(k, v) for k, v in request.query_params.multi_items()]
    items += [(k, v) for k, v in params.items() if k not in ("oauth_signature", "realm")]
    normalized = "&".join(f"{k}={v}" for k, v in sorted((_pct(k), _pct(v)) for k, v in items))
    base = "&".join(
        [request.method.upper(), _pct(f"https://{host}{request.url.path}"), _pct(normalized)]
    )
    key = f"{_pct(API_SECRET)}&{_pct(ACCESS_SECRET)}".encode()
    expected = base64.b64encode(hmac.new(key, base.encode(), hashlib.sha1).digest()).decode()
    return hmac.compare_digest(expected, params.get("oauth_signature", ""))


# -- responses ----------------------------------------------------------------------------


def problem(
    status: int,
    title: str,
    detail: str,
    type_: str = "about:blank",
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    body = {"title": title, "detail": detail, "type": type_, "status": status, **extra}
    return JSONResponse(body, status_code=status, headers=headers, media_type=PROBLEM)


class RateLimitedResponse(JSONResponse):
    """A 429 whose ``x-rate-limit-reset`` is ``retry_after`` whole seconds from when it is sent.

    The reset is an epoch second, so the client's ``reset - now`` is exact only when it reads
    the answer within the same second it was stamped: answers are not stamped in the last
    tenth of a second.
    """

    def __init__(
        self, body: dict[str, Any], retry_after: int, limit: int, media_type: str = PROBLEM
    ) -> None:
        super().__init__(body, status_code=429, media_type=media_type)
        self.retry_after = retry_after
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        frac = time.time() % 1
        if frac > 0.9:
            await anyio.sleep(1.01 - frac)
        now = time.time()
        self.headers["x-rate-limit-limit"] = str(self.limit)
        self.headers["x-rate-limit-remaining"] = "0"
        self.headers["x-rate-limit-reset"] = str(int(now) + self.retry_after)
        await super().__call__(scope, receive, send)


def too_many(retry_after: int, limit: int = 450) -> RateLimitedResponse:
    return RateLimitedResponse(
        {
            "title": "Too Many Requests",
            "detail": "Too Many Requests",
            "type": "about:blank",
            "status": 429,
        },
        retry_after,
        limit,
    )


def invalid_request(parameter: str, value: str, message: str) -> JSONResponse:
    return JSONResponse(
        {
            "errors": [{"parameters": {parameter: [value]}, "message": message}],
            "title": "Invalid Request",
            "detail": "One or more parameters to your request was invalid.",
            "type": "https://api.twitter.com/2/problems/invalid-request",
        },
        status_code=400,
        media_type=PROBLEM,
    )


def not_found_error(tweet_id: str, parameter: str = "id") -> dict[str, Any]:
    return {
        "value": tweet_id,
        "detail": f"Could not find tweet with {parameter}: [{tweet_id}].",
        "title": "Not Found Error",
        "resource_type": "tweet",
        "parameter": parameter,
        "resource_id": tweet_id,
        "type": "https://api.twitter.com/2/problems/resource-not-found",
    }


def route_key(method: str, path: str) -> str:
    path = path.rstrip("/")
    return (
        f"{method} /2" + re.sub(r"/\d+(?=/|$)", "/:id", path[2:])
        if path.startswith("/2/")
        else f"{method} {path}"
    )


@dataclass
class Bucket:
    limit: int
    used: int = 0
    reset: int = 0
