"""X web emulator state and guard: login flows, guest tokens, per-endpoint limits, sessions."""

from __future__ import annotations

import json
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from gwanjong_sandbox.twikit.model import (
    HOSTS,
    LIMITS,
    WEB_BEARER,
    web_error,
)
from gwanjong_sandbox.twitter.http import RateLimitedResponse
from gwanjong_sandbox.twitter.world import XWorldEmulator


class TwikitCore(XWorldEmulator):
    """What the web emulator holds, and the session/limit checks every GraphQL call passes."""

    platform = "twikit"
    fault_scope = ("twikit", "twitter")
    prefixes: tuple[str, ...] = ()
    hosts: tuple[str, ...] = HOSTS

    def reset(self) -> None:
        super().reset()
        self.flows: dict[str, dict[str, Any]] = {}
        self.guests: set[str] = set()
        self.buckets: dict[str, tuple[int, int]] = {}  # endpoint -> (used, reset)

    def error_response(self, status: int, retry_after: int | None) -> Response:
        if status == 429:
            return RateLimitedResponse(
                {"errors": [{"code": 88, "message": "Rate limit exceeded."}]},
                retry_after if retry_after is not None else 900,
                50,
                media_type="application/json",
            )
        codes = {
            400: (214, "Bad request."),
            401: (32, "Could not authenticate you."),
            403: (200, "Forbidden."),
            404: (34, "Sorry, that page does not exist."),
        }
        code, message = codes.get(status, (131, "Internal error."))
        return web_error(status, code, message)

    # -- session checks and limits ------------------------------------------------------

    def _session(self, request: Request) -> tuple[str | None, Response | None]:
        if request.headers.get("authorization") != f"Bearer {WEB_BEARER}":
            return None, web_error(401, 32, "Could not authenticate you.")
        user_id = self.world.sessions.get(request.cookies.get("auth_token", ""))
        if user_id is None:
            return None, web_error(401, 32, "Could not authenticate you.")
        ct0 = request.cookies.get("ct0")
        if not ct0 or request.headers.get("x-csrf-token") != ct0:
            return None, web_error(
                403, 353, "This request requires a matching csrf cookie and header."
            )
        if not request.headers.get("x-client-transaction-id"):
            return None, web_error(404, 34, "Sorry, that page does not exist.")
        return user_id, None

    def _limit(self, endpoint: str) -> tuple[dict[str, str], Response | None]:
        now = int(time.time())
        used, reset = self.buckets.get(endpoint, (0, 0))
        if now >= reset:
            used, reset = 0, now + 900
        limit = LIMITS.get(endpoint, 150)
        if used >= limit:
            return {}, RateLimitedResponse(
                {"errors": [{"code": 88, "message": "Rate limit exceeded."}]},
                max(1, reset - now),
                limit,
                media_type="application/json",
            )
        self.buckets[endpoint] = (used + 1, reset)
        return {
            "x-rate-limit-limit": str(limit),
            "x-rate-limit-remaining": str(limit - used - 1),
            "x-rate-limit-reset": str(reset),
        }, None

    def _guard(
        self, request: Request, endpoint: str
    ) -> tuple[str | None, dict[str, str], Response | None]:
        user_id, error = self._session(request)
        if error is not None:
            return None, {}, error
        headers, limited = self._limit(endpoint)
        if limited is not None:
            return None, {}, limited
        return user_id, headers, None

    @staticmethod
    def _variables(request: Request) -> dict[str, Any]:
        try:
            value = json.loads(request.query_params.get("variables", "{}"))
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}
