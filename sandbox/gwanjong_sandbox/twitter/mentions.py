"""``GET /2/users/:id/mentions`` for the X emulator: the user mention timeline.

Posts that @mention the user, including replies to the user's posts (X counts a reply as
a mention of the author it answers). Quotes without an @mention are not in it, as on X.
Newest first; ``since_id``/``until_id`` bound it, ``max_results`` is 5-100 (default 10)
and ``pagination_token`` pages on, with the same meta (newest_id, oldest_id,
result_count, next_token) as search.
"""

from __future__ import annotations

import re
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from gwanjong_sandbox.twitter.http import invalid_request, problem
from gwanjong_sandbox.twitter.model import XTweet
from gwanjong_sandbox.twitter.wire import TwitterWire

TOKEN = re.compile(r"7140dibdnow9c7btw3([0-9a-f]+)")


def timeline(emulator: TwitterWire, user_id: str) -> list[XTweet]:
    w = emulator.world
    user = w.users[user_id]
    hits = [
        t
        for t in w.tweets.values()
        if not t.deleted
        and t.author_id != user_id
        and (
            t.reply_to_user == user_id
            or any(n.lower() == user.username.lower() for _s, _e, n in t.mentions())
        )
    ]
    return sorted(hits, key=lambda t: int(t.id), reverse=True)


async def user_mentions(emulator: TwitterWire, request: Request) -> Response:
    _caller, bucket, error = emulator._guard(request)
    if error is not None:
        return error
    assert bucket is not None
    user_id = request.path_params["id"]
    if not user_id.isdigit() or user_id not in emulator.world.users:
        return emulator._stamp(
            problem(
                404,
                "Not Found Error",
                f"Could not find user with id: [{user_id}].",
                "https://api.twitter.com/2/problems/resource-not-found",
            ),
            bucket,
        )
    q = request.query_params
    value = q.get("max_results", "10")
    max_results = int(value) if value.isdigit() else -1
    if not 5 <= max_results <= 100:
        return emulator._stamp(
            invalid_request(
                "max_results",
                value,
                f"The `max_results` query parameter value [{value}] is not between 5 and 100",
            ),
            bucket,
        )
    hits = timeline(emulator, user_id)
    for name, keep in (
        ("since_id", lambda t, v: int(t.id) > v),
        ("until_id", lambda t, v: int(t.id) < v),
    ):
        raw = q.get(name)
        if raw is None:
            continue
        if not raw.isdigit():
            return emulator._stamp(
                invalid_request(
                    name, raw, f"The `{name}` query parameter value [{raw}] is not valid"
                ),
                bucket,
            )
        hits = [t for t in hits if keep(t, int(raw))]
    offset = 0
    token = q.get("pagination_token")
    if token:
        match = TOKEN.fullmatch(token)
        if not match:
            return emulator._stamp(
                invalid_request(
                    "pagination_token",
                    token,
                    f"The `pagination_token` query parameter value [{token}] is not valid",
                ),
                bucket,
            )
        offset = int(match.group(1), 16)
    page = hits[offset : offset + max_results]
    if not page:
        return emulator._stamp(JSONResponse({"meta": {"result_count": 0}}), bucket)
    body, error = emulator._payload(request, page)
    if error is not None:
        return emulator._stamp(error, bucket)
    meta: dict[str, Any] = {
        "result_count": len(page),
        "newest_id": page[0].id,
        "oldest_id": page[-1].id,
    }
    if offset + max_results < len(hits):
        meta["next_token"] = f"7140dibdnow9c7btw3{offset + max_results:x}"
    body["meta"] = meta
    return emulator._stamp(JSONResponse(body), bucket)
