"""X's inbox: the user mention timeline (``GET /2/users/:id/mentions``) through tweepy.

X puts replies to our posts in it too (a reply mentions the author it answers); quotes
appear when they also @mention us. ``since`` is a post id: X's own ``since_id``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gwanjong_shared.contract import MentionList, errors
from gwanjong_twitter.api import EXPANSIONS, TWEET_FIELDS, USER_FIELDS
from gwanjong_twitter.posts import XPost, to_post

if TYPE_CHECKING:
    from gwanjong_twitter.adapter import TwitterAdapter


def _why(post: XPost, user_id: str) -> str:
    if post.quoted_author_id == user_id:
        return "quote"
    if str((post.raw or {}).get("in_reply_to_user_id") or "") == user_id:
        return "reply"
    return "mention"


async def fetch_mentions(adapter: TwitterAdapter, since: str | None, limit: int) -> MentionList:
    if since is not None and (not since.isdigit() or len(since) > 20):
        raise errors.invalid_input(
            f"since must be the next_since of an earlier mentions call (a post id); got {since!r}."
        )
    api = adapter.api
    me = await api.me()
    if me is None:
        raise errors.auth(
            "The X inbox needs our account: set the four OAuth 1.0a values (TWITTER_API_KEY/"
            "SECRET, TWITTER_ACCESS_TOKEN/SECRET) and restart the server."
        )
    user_id, _username = me
    client = await api.open()
    resp = await api._resp(
        "reading mentions",
        "GET /2/users/:id/mentions",
        client.get_users_mentions(
            user_id,
            max_results=max(5, min(100, limit)),
            since_id=since,
            tweet_fields=[*TWEET_FIELDS, "in_reply_to_user_id"],
            expansions=EXPANSIONS,
            user_fields=USER_FIELDS,
            user_auth=api._read_auth(),
        ),
    )
    found, _gone = api._posts(resp.data, resp.includes, resp.errors)
    posts = [
        to_post(p).model_copy(update={"tags": [_why(p, user_id)]})
        for p in found
        if p.author_id != user_id
    ]
    newest = str(resp.meta.get("newest_id") or since or "")
    return MentionList(posts=posts[:limit], next_since=newest)
