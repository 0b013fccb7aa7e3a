"""Hacker News's inbox: replies to our own stories and comments.

HN has no notifications API (its "threads" page is HTML), so the inbox is rebuilt from what
Firebase shows: our user's ``submitted`` ids (newest first), our SUBMITTED most recent
items, and each one's direct replies (``kids``). A reply is ours to answer when it is live,
not by us, and none of our items answers it (our own comments name their parent, so this
needs no further reads). Each item's id is the reply's own id: get_post reads it, and a
person answers it on its page.

Every call reads the same bounded set, so the cursor never resumes a read; the oldest
unseen replies are handed out first (``gwanjong_shared.kit.inbox``). The cursor is
``<time>,<id>`` of the newest reply handed out.
"""

from __future__ import annotations

import re
from typing import Any

from gwanjong_hackernews.adapter import HackernewsAdapter, gone, iso, item_url, text_of
from gwanjong_shared.contract import MentionList, errors
from gwanjong_shared.contract.models import Post
from gwanjong_shared.kit.inbox import Back, Key, hand_out, iso_key, key_text, parse_cursor

SUBMITTED = 30  # our most recent stories and comments: older threads rarely wake up
EXAMPLE = "2026-11-27T09:00:00Z,41234567"
_WHEN = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?(Z|[+-]\d\d:\d\d)")
_ID = re.compile(r"\d{1,12}")


def parse_key(text: str) -> Key | None:
    when, comma, item_id = text.partition(",")
    if not _WHEN.fullmatch(when) or not comma or not _ID.fullmatch(item_id):
        return None
    try:
        return (iso_key(when), item_id.zfill(12))  # ids as fixed width: text order is number order
    except ValueError:
        return None


def _key_text(key: Key) -> str:
    return key_text((key[0], key[1].lstrip("0") or "0"))


def _ids(values: Any) -> list[int]:
    return [v for v in values or [] if isinstance(v, int) and not isinstance(v, bool)]


async def fetch_mentions(adapter: HackernewsAdapter, since: str | None, limit: int) -> MentionList:
    if not adapter.is_configured():
        raise errors.auth(
            "The Hacker News inbox needs your username: put HACKERNEWS_USERNAME in the "
            "environment and restart the server (reading needs nothing)."
        )
    # every call reads the same bounded set: nothing resumes
    cursor = parse_cursor(since, parse_key, EXAMPLE, resumable=False)
    user = await adapter.user()
    me = str(user.get("id") or "")
    ours = [i for i in await adapter.items(_ids(user.get("submitted"))[:SUBMITTED]) if i]
    answered = {i.get("parent") for i in ours if i.get("by") == me}
    parents = [i for i in ours if not gone(i) and _ids(i.get("kids"))]
    kid_ids = [(p, k) for p in parents for k in _ids(p.get("kids"))]
    replies = await adapter.items([k for _, k in kid_ids])
    back: Back[Post] = Back()
    for (parent, _), reply in zip(kid_ids, replies, strict=True):
        if reply is None or gone(reply) or reply.get("by") in (me, None):
            continue
        if reply.get("id") in answered:
            continue
        when = iso(reply.get("time"))
        if when is None:
            continue  # a reply without a time cannot be placed against the cursor
        key = (iso_key(when), str(reply["id"]).zfill(12))
        if cursor.seen is not None and key <= cursor.seen:
            continue
        back.found.setdefault(
            key,
            Post(
                id=str(reply["id"]),
                platform=adapter.platform,
                title=str(parent.get("title") or ""),  # a reply to our comment has none
                url=item_url(reply["id"]),
                body=text_of(reply.get("text")),
                author=str(reply.get("by") or ""),
                tags=["reply"],
                comments_count=len(_ids(reply.get("kids"))),
                published_at=when,
                raw=reply,
            ),
        )
    return hand_out(back, cursor, limit, _key_text)
