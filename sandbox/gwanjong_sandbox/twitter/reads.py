"""X API v2 reads: tweet lookup, recent search, /users/me, trends."""

from __future__ import annotations

import re
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from gwanjong_sandbox.twitter.http import (
    invalid_request,
    not_found_error,
)
from gwanjong_sandbox.twitter.model import (
    ME_ID,
    USER_FIELDS,
)
from gwanjong_sandbox.twitter.wire import TwitterWire


class TwitterReads(TwitterWire):
    """Read routes."""

    async def get_tweet(self, request: Request) -> Response:
        _caller, bucket, error = self._guard(request)
        if error is not None:
            return error
        assert bucket is not None
        tweet_id = request.path_params["id"]
        if not tweet_id.isdigit():
            return self._stamp(
                invalid_request(
                    "id", tweet_id, f"The `id` query parameter value [{tweet_id}] is not valid"
                ),
                bucket,
            )
        tweet = self.world.live(tweet_id)
        if tweet is None:
            return self._stamp(JSONResponse({"errors": [not_found_error(tweet_id)]}), bucket)
        body, error = self._payload(request, [tweet])
        if error is not None:
            return self._stamp(error, bucket)
        body["data"] = body["data"][0]
        return self._stamp(JSONResponse(body), bucket)

    async def get_tweets(self, request: Request) -> Response:
        _caller, bucket, error = self._guard(request)
        if error is not None:
            return error
        assert bucket is not None
        ids = [i for i in request.query_params.get("ids", "").split(",") if i]
        if not ids or len(ids) > 100 or not all(i.isdigit() for i in ids):
            return self._stamp(
                invalid_request(
                    "ids", ",".join(ids), "The `ids` query parameter must hold 1-100 numeric ids"
                ),
                bucket,
            )
        found = [t for i in ids if (t := self.world.live(i)) is not None]
        body, error = self._payload(request, found)
        if error is not None:
            return self._stamp(error, bucket)
        missing = [not_found_error(i, "ids") for i in ids if self.world.live(i) is None]
        if missing:
            body["errors"] = missing + body.get("errors", [])
        if not found:
            body.pop("data", None)
        return self._stamp(JSONResponse(body), bucket)

    async def search(self, request: Request) -> Response:
        _caller, bucket, error = self._guard(request)
        if error is not None:
            return error
        assert bucket is not None
        q = request.query_params
        query = q.get("query", "")
        if not query or len(query) > 512:
            return self._stamp(
                invalid_request(
                    "query", query, "The `query` query parameter must be 1-512 characters long"
                ),
                bucket,
            )
        try:
            max_results = int(q.get("max_results", "10"))
        except ValueError:
            max_results = -1
        if not 10 <= max_results <= 100:
            value = q.get("max_results", "")
            return self._stamp(
                invalid_request(
                    "max_results",
                    value,
                    f"The `max_results` query parameter value [{value}] is not between 10 and 100",
                ),
                bucket,
            )
        token = q.get("next_token") or q.get("pagination_token")
        offset = 0
        if token:
            match = re.fullmatch(r"b26v89c19zqg8o([0-9a-f]+)", token)
            if not match:
                return self._stamp(
                    invalid_request(
                        "next_token",
                        token,
                        f"The `next_token` query parameter value [{token}] is not valid",
                    ),
                    bucket,
                )
            offset = int(match.group(1), 16)
        try:
            hits = self.world.index(query)  # X's index lags new posts (the ``lag`` fault)
            hits = [t for t in hits if self.state.visible("twitter", t.id)]
        except ValueError as exc:
            return self._stamp(
                invalid_request(
                    "query", query, f"There were errors processing your request: {exc}"
                ),
                bucket,
            )
        # X cuts a page from the index hits, then drops what it may not show: a page comes
        # back short, even empty, with next_token while hits remain beyond it.
        page = [t for t in hits[offset : offset + max_results] if self.world.shown(t)]
        meta: dict[str, Any] = {"newest_id": page[0].id, "oldest_id": page[-1].id} if page else {}
        meta["result_count"] = len(page)
        if offset + max_results < len(hits):
            meta["next_token"] = f"b26v89c19zqg8o{offset + max_results:x}"
        if not page:
            return self._stamp(JSONResponse({"meta": meta}), bucket)
        body, error = self._payload(request, page)
        if error is not None:
            return self._stamp(error, bucket)
        body["meta"] = meta
        return self._stamp(JSONResponse(body), bucket)

    async def me(self, request: Request) -> Response:
        _caller, bucket, error = self._guard(request, user_context=True)
        if error is not None:
            return error
        assert bucket is not None
        fields, error = self._fields(request, "user.fields", USER_FIELDS)
        if error is not None:
            return self._stamp(error, bucket)
        return self._stamp(
            JSONResponse({"data": self.render_user(self.world.users[ME_ID], fields)}), bucket
        )

    async def trends(self, request: Request) -> Response:
        _caller, bucket, error = self._guard(request)
        if error is not None:
            return error
        assert bucket is not None
        woeid = request.path_params["woeid"]
        try:
            max_trends = int(request.query_params.get("max_trends", "20"))
        except ValueError:
            max_trends = 0
        if not woeid.isdigit():
            return self._stamp(
                invalid_request(
                    "woeid", woeid, f"The `woeid` path parameter value [{woeid}] is not valid"
                ),
                bucket,
            )
        if not 1 <= max_trends <= 50:
            value = request.query_params.get("max_trends", "")
            return self._stamp(
                invalid_request(
                    "max_trends",
                    value,
                    f"The `max_trends` query parameter value [{value}] is not between 1 and 50",
                ),
                bucket,
            )
        return self._stamp(JSONResponse({"data": self.trend_list()[:max_trends]}), bucket)

    def trend_list(self) -> list[dict[str, Any]]:
        """Hashtags of the live posts, weighted by engagement: what is "trending" here."""
        score: dict[str, int] = {}
        spelled: dict[str, str] = {}
        for t in self.world.tweets.values():
            if t.deleted:
                continue
            for _s, _e, tag in t.hashtags():
                score[tag.lower()] = score.get(tag.lower(), 0) + 1000 + 37 * t.likes
                spelled.setdefault(tag.lower(), tag)
        ranked = sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))
        return [{"trend_name": f"#{spelled[k]}", "tweet_count": v} for k, v in ranked]
