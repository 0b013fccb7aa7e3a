"""X's inbox: the user mention timeline (``GET /2/users/:id/mentions``) through tweepy.

X puts replies to our posts in it too (a reply mentions the author it answers); quotes
appear when they also @mention us. Our cursor is a post id, used as X's own ``since_id``;
X pages newest first, so every page is followed (``pagination_token`` from
``meta.next_token``) until it ends, and the oldest unseen posts are handed out first
(``gwanjong_shared.kit.inbox``). X keeps only the 800 most recent mentions, which the page
bound covers. An answer holding only ``errors`` (a suspended account) is that error, not
an empty inbox.
"""

from __future__ import annotations

from gwanjong_shared.contract import MentionList, errors
from gwanjong_shared.contract.models import Post
from gwanjong_shared.kit.inbox import Key, Page, hand_out, parse_cursor, read_back
from gwanjong_twitter.api import EXPANSIONS, TWEET_FIELDS, USER_FIELDS, ApiReader
from gwanjong_twitter.posts import XPost, to_post
from gwanjong_twitter.problems import error_for

PAGE = 100  # the endpoint's max_results maximum
EXAMPLE = "1861000000000000000"


def _why(post: XPost, user_id: str) -> str:
    if post.quoted_author_id == user_id:
        return "quote"
    if str((post.raw or {}).get("in_reply_to_user_id") or "") == user_id:
        return "reply"
    return "mention"


def parse_key(text: str) -> Key | None:
    # Ids are 64-bit snowflakes: ordered by time, unique, so the id alone is the key.
    return (text.zfill(20), "") if text.isascii() and text.isdigit() and len(text) <= 20 else None


def key_text(key: Key) -> str:
    return key[0].lstrip("0") or "0"


async def fetch_mentions(api: ApiReader, since: str | None, limit: int) -> MentionList:
    cursor = parse_cursor(since, parse_key, EXAMPLE)
    me = await api.me()
    if me is None:
        raise errors.auth(
            "The X inbox needs our account: set the four OAuth 1.0a values (TWITTER_API_KEY/"
            "SECRET, TWITTER_ACCESS_TOKEN/SECRET) and restart the server."
        )
    user_id, _username = me
    client = await api.open()
    since_id = key_text(cursor.seen) if cursor.seen is not None else None

    async def page(token: str | None) -> Page[Post]:
        resp = await api.response(
            "reading mentions",
            "GET /2/users/:id/mentions",
            client.get_users_mentions(
                user_id,
                max_results=PAGE,
                since_id=since_id,
                pagination_token=token,
                tweet_fields=[*TWEET_FIELDS, "in_reply_to_user_id"],
                expansions=EXPANSIONS,
                user_fields=USER_FIELDS,
                user_auth=api.read_auth(),
            ),
        )
        if resp.data is None and resp.errors:
            raise error_for(resp.errors, "reading mentions")
        found, _gone = api.posts_of(resp.data, resp.includes, resp.errors)
        keys = [(p.id.zfill(20), "") for p in found]
        items = [
            ((p.id.zfill(20), ""), to_post(p).model_copy(update={"tags": [_why(p, user_id)]}))
            for p in found
            if p.author_id != user_id
        ]
        token = resp.meta.get("next_token")
        return Page(items, str(token) if token else None, min(keys, default=None))

    # since_id already bounds every page at X's side: the pages end where the cursor is.
    back = await read_back(page, cursor, stop_at_seen=False)
    return hand_out(back, cursor, limit, key_text)
