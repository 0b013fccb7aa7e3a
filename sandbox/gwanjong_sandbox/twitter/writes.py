"""X API v2 writes: create a post (the reply rule, duplicates, length) and like."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from gwanjong_sandbox.twitter.http import (
    invalid_request,
    not_found_error,
    problem,
)
from gwanjong_sandbox.twitter.model import weighted_length
from gwanjong_sandbox.twitter.wire import TwitterWire


class TwitterWrites(TwitterWire):
    """Write routes (OAuth 1.0a user context only)."""

    async def create_tweet(self, request: Request) -> Response:
        caller, bucket, error = self._guard(request, user_context=True)
        if error is not None:
            return error
        assert caller is not None and bucket is not None
        try:
            payload = await request.json()
        except ValueError:
            payload = None
        if not isinstance(payload, dict):
            return self._stamp(
                invalid_request("body", "", "The request body is not valid JSON"), bucket
            )
        text = str(payload.get("text") or "")
        reply = payload.get("reply") or {}
        reply_to = str(reply.get("in_reply_to_tweet_id") or "") or None
        quoted = str(payload.get("quote_tweet_id") or "") or None
        if not text.strip():
            return self._stamp(
                invalid_request("text", text, "The `text` field must not be empty"), bucket
            )
        if weighted_length(text) > 280:
            return self._stamp(
                problem(
                    403,
                    "Forbidden",
                    "Your Tweet text is too long. For more information on how Twitter "
                    "determines text length see https://github.com/twitter/twitter-text.",
                ),
                bucket,
            )
        w = self.world
        if any(
            t.author_id == caller and t.text == text and not t.deleted for t in w.tweets.values()
        ):
            return self._stamp(
                problem(
                    403,
                    "Forbidden",
                    "You are not allowed to create a Tweet with duplicate content.",
                ),
                bucket,
            )
        if reply_to is not None:
            target = w.live(reply_to)
            if target is None:
                return self._stamp(
                    invalid_request(
                        "reply.in_reply_to_tweet_id",
                        reply_to,
                        "The `reply.in_reply_to_tweet_id` field value is not a Tweet you can reply to",
                    ),
                    bucket,
                )
            if not w.summons(target, caller) or not w.may_reply(target, caller):
                return self._stamp(
                    problem(
                        403,
                        "Forbidden",
                        "Reply to this conversation is not allowed because you have not "
                        "been mentioned or otherwise engaged by the author of the post you are replying to.",
                    ),
                    bucket,
                )
        tweet = w.post(caller, text, reply_to=reply_to, quoted=quoted)
        url = f"https://x.com/{w.users[caller].username}/status/{tweet.id}"
        self.state.record_write(
            "twitter",
            "write_comment" if reply_to else "write_post",
            reply_to,
            text=text,
            id=tweet.id,
            url=url,
        )
        return self._stamp(
            JSONResponse(
                {"data": {"id": tweet.id, "text": text, "edit_history_tweet_ids": [tweet.id]}},
                status_code=201,
            ),
            bucket,
        )

    async def like(self, request: Request) -> Response:
        caller, bucket, error = self._guard(request, user_context=True)
        if error is not None:
            return error
        assert caller is not None and bucket is not None
        if request.path_params["id"] != caller:
            return self._stamp(
                problem(403, "Forbidden", "You are not permitted to perform this action."), bucket
            )
        try:
            payload = await request.json()
        except ValueError:
            payload = {}
        tweet_id = str((payload or {}).get("tweet_id") or "")
        tweet = self.world.live(tweet_id)
        if tweet is None:
            return self._stamp(
                JSONResponse({"errors": [not_found_error(tweet_id, "tweet_id")]}), bucket
            )
        if caller not in tweet.liked_by:
            tweet.liked_by.add(caller)
            tweet.likes += 1
            self.state.record_write("twitter", "upvote", tweet_id)
        return self._stamp(JSONResponse({"data": {"liked": True}}), bucket)
