"""X API v2 emulator state and guard: credentials, per-endpoint rate buckets, errors."""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import Response

from gwanjong_sandbox.twitter.http import (
    Bucket,
    oauth1_params,
    oauth1_valid,
    problem,
    route_key,
    too_many,
)
from gwanjong_sandbox.twitter.model import (
    ACCESS_SECRET,
    ACCESS_TOKEN,
    API_KEY,
    API_SECRET,
    BEARER,
    LIMITS,
    ME_ID,
    WINDOW_S,
)
from gwanjong_sandbox.twitter.world import XWorldEmulator


class TwitterCore(XWorldEmulator):
    """The world, the buckets, and the auth/limit guard every route passes."""

    platform: str = "twitter"
    prefixes: tuple[str, ...] = ("/2/",)
    # api.x.com also serves v2 on the real X, but here it belongs to the web emulator (twikit
    # logs in there); tweepy always calls api.twitter.com.
    hosts: tuple[str, ...] = ("api.twitter.com",)

    def reset(self) -> None:
        super().reset()
        self.buckets: dict[str, Bucket] = {}

    def demo_env(self, base_url: str) -> dict[str, str]:
        return {
            "TWITTER_API_BASE_URL": base_url,
            "TWITTER_BEARER_TOKEN": BEARER,
            "TWITTER_API_KEY": API_KEY,
            "TWITTER_API_SECRET": API_SECRET,
            "TWITTER_ACCESS_TOKEN": ACCESS_TOKEN,
            "TWITTER_ACCESS_SECRET": ACCESS_SECRET,
            # the sandbox account stands for an app X approved for AI-generated replies
            "TWITTER_AI_REPLIES_APPROVED": "true",
        }

    def error_response(self, status: int, retry_after: int | None) -> Response:
        if status == 429:
            return too_many(retry_after if retry_after is not None else WINDOW_S)
        titles = {
            400: "Invalid Request",
            401: "Unauthorized",
            403: "Forbidden",
            404: "Not Found",
            500: "Internal Server Error",
            502: "Bad Gateway",
            503: "Service Unavailable",
        }
        title = titles.get(status, "Error")
        return problem(status, title, title)

    # -- auth and limits ------------------------------------------------------------------

    def _caller(
        self, request: Request, *, user_context: bool
    ) -> tuple[str | None, Response | None]:
        """(user id or "app", None) when authorised, else (None, error response)."""
        header = request.headers.get("authorization", "")
        if header.startswith("Bearer "):
            if header[7:] != BEARER:
                return None, problem(401, "Unauthorized", "Unauthorized")
            if user_context:
                return None, problem(
                    403,
                    "Unsupported Authentication",
                    "Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.  "
                    "Supported authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context].",
                    "https://api.twitter.com/2/problems/unsupported-authentication",
                )
            return "app", None
        params = oauth1_params(header)
        if params is None or not oauth1_valid(request, params):
            return None, problem(401, "Unauthorized", "Unauthorized")
        return ME_ID, None

    def _limit(self, request: Request) -> tuple[Bucket, Response | None]:
        key = route_key(request.method, request.url.path)
        now = int(time.time())
        bucket = self.buckets.get(key)
        if bucket is None or now >= bucket.reset:
            bucket = self.buckets[key] = Bucket(LIMITS.get(key, 300), 0, now + WINDOW_S)
        if bucket.used >= bucket.limit:
            return bucket, too_many(max(1, bucket.reset - now), bucket.limit)
        bucket.used += 1
        return bucket, None

    @staticmethod
    def _stamp(response: Response, bucket: Bucket) -> Response:
        response.headers["x-rate-limit-limit"] = str(bucket.limit)
        response.headers["x-rate-limit-remaining"] = str(max(0, bucket.limit - bucket.used))
        response.headers["x-rate-limit-reset"] = str(bucket.reset)
        return response

    def _guard(
        self, request: Request, *, user_context: bool = False
    ) -> tuple[str | None, Bucket | None, Response | None]:
        caller, error = self._caller(request, user_context=user_context)
        if error is not None:
            return None, None, error
        bucket, limited = self._limit(request)
        if limited is not None:
            return None, None, limited
        return caller, bucket, None

    # -- rendering ------------------------------------------------------------------------
