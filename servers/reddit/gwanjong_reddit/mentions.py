"""Reddit's inbox: username mentions and replies to our posts and comments.

``reddit.inbox.all()`` through asyncpraw (``GET /message/inbox``); private messages (t4)
are not discussions and are skipped. An inbox comment carries no ``link_id``, so the post
it belongs to comes from its ``context`` path. Each item's id is that post's (what
get_post and write_comment take); its url is the comment itself. ``since`` is the newest
``created_utc`` already seen.
"""

from __future__ import annotations

import re
from typing import Any

import asyncpraw

from gwanjong_reddit.client import RedditClient
from gwanjong_reddit.posts import WEB, iso
from gwanjong_shared.contract import MentionList, errors
from gwanjong_shared.contract.models import Post

_CONTEXT = re.compile(r"/comments/(?P<post>[0-9a-z]+)/[^/]*/(?P<comment>[0-9a-z]+)")
_WHY = {"username_mention": "mention", "comment_reply": "reply", "post_reply": "reply"}


def to_post(d: dict[str, Any]) -> Post | None:
    match = _CONTEXT.search(str(d.get("context") or ""))
    if not d.get("was_comment") or match is None:
        return None
    author = d.get("author")
    return Post(
        id=match["post"],
        platform="reddit",
        title=str(d.get("link_title") or ""),
        url=WEB + str(d.get("context") or "").split("?", 1)[0],
        body=str(d.get("body") or ""),
        author=str(getattr(author, "name", author) or ""),
        tags=[_WHY.get(str(d.get("type") or ""), "mention")],
        likes=int(d.get("score") or 0),
        comments_count=int(d.get("num_comments") or 0),
        published_at=iso(d.get("created_utc")),
        raw={k: v for k, v in d.items() if k != "_reddit"},
    )


async def fetch_mentions(client: RedditClient, since: str | None, limit: int) -> MentionList:
    client.require_account()
    try:
        floor = float(since) if since else 0.0
    except ValueError:
        raise errors.invalid_input(
            f"since must be the next_since of an earlier mentions call; got {since!r}."
        ) from None

    async def inbox(reddit: asyncpraw.Reddit) -> list[dict[str, Any]]:
        return [vars(item) async for item in reddit.inbox.all(limit=min(100, max(limit, 25)))]

    items = await client.run("reading the inbox", inbox, missing="inbox")
    posts: list[Post] = []
    newest = floor
    for d in items:
        created = float(d.get("created_utc") or 0)
        if created <= floor:
            continue
        post = to_post(d)
        if post is not None:
            posts.append(post)
            newest = max(newest, created)
    next_since = f"{newest:.3f}" if newest else (since or "")
    return MentionList(posts=posts[:limit], next_since=next_since)
