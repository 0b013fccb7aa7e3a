"""Reddit's HTTP manners: rate-limit headers, error bodies (JSON, HTML, CDN pages), bearer auth."""

from __future__ import annotations

import math
import time
from typing import Any
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from gwanjong_sandbox.reddit.model import (
    BUDGET,
    CLIENT_ID,
    WINDOW_S,
    Reject,
)
from gwanjong_sandbox.reddit.wire import RedditWire


class RedditHttp(RedditWire):
    """Auth, budget and error answers shared by every route."""

    # -- http plumbing ----------------------------------------------------------------

    def _rate_headers(self, client: str, count: bool = True) -> dict[str, str]:
        now = time.time()
        start, used = self.windows.get(client, (0.0, 0))
        if now >= start + WINDOW_S:
            start, used = math.floor(now / WINDOW_S) * WINDOW_S, 0
        if count:
            used += 1
        self.windows[client] = (start, used)
        reset = max(1, math.ceil(start + WINDOW_S - now))
        return {
            "x-ratelimit-used": str(used),
            "x-ratelimit-remaining": f"{float(max(0, BUDGET - used))}",
            "x-ratelimit-reset": str(reset),
        }

    def error_response(self, status: int, retry_after: int | None) -> Response:
        if status == 401:
            return HTMLResponse(
                '<!doctype html><html xmlns="http://www.w3.org/1999/xhtml" lang="en" xml:lang="en">'
                "<head><title>reddit.com: page not found</title></head><body>"
                "<h1>page not found</h1></body></html>",
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="reddit", error="invalid_token"'},
            )
        if status == 429:
            start, _ = self.windows.get(CLIENT_ID, (time.time(), 0))
            reset = (
                retry_after
                if retry_after is not None
                else max(1, math.ceil(start + WINDOW_S - time.time()))
            )
            headers = {
                "x-ratelimit-used": str(BUDGET),
                "x-ratelimit-remaining": "0.0",
                "x-ratelimit-reset": str(reset),
            }
            if retry_after is not None:
                headers["Retry-After"] = str(retry_after)
            return JSONResponse(
                {"message": "Too Many Requests", "error": 429}, status_code=429, headers=headers
            )
        if status in (502, 503, 504):  # the CDN answers these, in HTML and without budget headers
            return HTMLResponse(
                "<!doctype html><html><head><title>Reddit - Dive into anything</title></head>"
                "<body><h1>all of our servers are busy right now</h1>"
                "<p>please try again in a minute</p></body></html>",
                status_code=status,
            )
        messages = {
            400: "Bad Request",
            403: "Forbidden",
            404: "Not Found",
            409: "Conflict",
            413: "Request Entity Too Large",
            500: "Internal Server Error",
        }
        headers = {} if status >= 500 else self._rate_headers(CLIENT_ID)
        return JSONResponse(
            {"message": messages.get(status, "Error"), "error": status},
            status_code=status,
            headers=headers,
        )

    def _not_found(self, client: str) -> Response:
        return JSONResponse(
            {"message": "Not Found", "error": 404},
            status_code=404,
            headers=self._rate_headers(client, count=False),
        )

    def _forbidden(self, client: str) -> Response:
        return JSONResponse(
            {"message": "Forbidden", "error": 403},
            status_code=403,
            headers=self._rate_headers(client, count=False),
        )

    def _authorize(self, request: Request) -> tuple[str, str | None, dict[str, str]]:
        """(client id, user or None, rate-limit headers) for a bearer token, else a 401/429."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        grant = self.tokens.get(token.strip()) if scheme.lower() == "bearer" else None
        if grant is None:
            raise Reject(self.error_response(401, None))
        client, user = grant
        headers = self._rate_headers(client)
        if (
            float(headers["x-ratelimit-remaining"]) <= 0
            and int(headers["x-ratelimit-used"]) > BUDGET
        ):
            raise Reject(
                JSONResponse(
                    {"message": "Too Many Requests", "error": 429}, status_code=429, headers=headers
                )
            )
        return client, user, headers

    @staticmethod
    async def _form(request: Request) -> dict[str, str]:
        body = (await request.body()).decode("utf-8", errors="replace")
        return dict(parse_qsl(body, keep_blank_values=True))

    @staticmethod
    def _json(data: Any, headers: dict[str, str], status: int = 200) -> Response:
        return JSONResponse(data, status_code=status, headers=headers)

    @staticmethod
    def _api_errors(errors: list[list[str]], headers: dict[str, str]) -> Response:
        # Reddit reports write errors with HTTP 200.
        return JSONResponse({"json": {"errors": errors}}, headers=headers)
