"""X's web GraphQL writes: CreateTweet and FavoriteTweet (twikit can write; the gwanjong server never does)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from gwanjong_sandbox.twikit.model import web_error
from gwanjong_sandbox.twikit.wire import TwikitWire


class TwikitWrites(TwikitWire):
    """Write routes."""

    # -- GraphQL writes (twikit can write; the gwanjong server never does) --------------

    async def create_tweet(self, request: Request) -> Response:
        user_id, headers, error = self._guard(request, "CreateTweet")
        if error is not None:
            return error
        assert user_id is not None
        try:
            v = (await request.json()).get("variables", {})
        except (ValueError, AttributeError):
            return web_error(400, 214, "Bad request.")
        text = str(v.get("tweet_text") or "")
        reply_to = (v.get("reply") or {}).get("in_reply_to_tweet_id")
        if any(t.author_id == user_id and t.text == text for t in self.world.tweets.values()):
            return JSONResponse(
                {
                    "errors": [
                        {
                            "message": "Status is a duplicate. (187)",
                            "code": 187,
                            "extensions": {"code": 187},
                        }
                    ],
                    "data": {},
                },
                headers=headers,
            )
        tweet = self.world.post(user_id, text, reply_to=str(reply_to) if reply_to else None)
        self.state.record_write(
            "twikit",
            "write_comment" if reply_to else "write_post",
            reply_to,
            text=text,
            id=tweet.id,
        )
        return JSONResponse(
            {"data": {"create_tweet": {"tweet_results": {"result": self.web_tweet(tweet)}}}},
            headers=headers,
        )

    async def favorite(self, request: Request) -> Response:
        _user_id, headers, error = self._guard(request, "FavoriteTweet")
        if error is not None:
            return error
        try:
            tweet_id = str((await request.json()).get("variables", {}).get("tweet_id") or "")
        except (ValueError, AttributeError):
            return web_error(400, 214, "Bad request.")
        tweet = self.world.live(tweet_id)
        if tweet is None:
            return JSONResponse(
                {
                    "errors": [{"message": "_Missing: No status found with that ID.", "code": 144}],
                    "data": {},
                },
                headers=headers,
            )
        tweet.likes += 1
        self.state.record_write("twikit", "upvote", tweet_id)
        return JSONResponse({"data": {"favorite_tweet": "Done"}}, headers=headers)
