"""Reddit's inbox: username mentions and replies to our posts and comments.

Three of Reddit's message boxes through asyncpraw, the ones that hold only discussions:
``inbox.mentions()`` (``GET /message/mentions``), ``inbox.comment_replies()``
(``/message/comments``) and ``inbox.submission_replies()`` (``/message/selfreply``). The
mixed ``/message/inbox`` would let private messages fill its pages and push the summons
to pages never read. Each box is paged back (``after``, 100 a page) until it reaches our
cursor, at most the 1,000 items a Reddit listing holds at all, and the oldest unseen
items of the three are handed out first (``gwanjong_shared.kit.inbox``).

An inbox comment carries no ``link_id``, so the post it belongs to comes from its
``context`` path. Each item's id and url are that post's (what get_post and write_comment
take): a reply lands on the thread, and the person who approves it is shown the thread, not
the comment (the comment's text is the item's body). The cursor is ``<created_utc>,<fullname>`` of the newest item
handed out; a bare ``created_utc`` (what this server handed out before) still works.
"""

from __future__ import annotations

import re
from typing import Any

import asyncpraw

from gwanjong_reddit.client import RedditClient
from gwanjong_reddit.posts import WEB, iso
from gwanjong_shared.contract import MentionList, errors
from gwanjong_shared.contract.models import Post
from gwanjong_shared.kit.inbox import LAST, MAX_PAGES, Back, Key, hand_out, parse_cursor

_CONTEXT = re.compile(r"/comments/(?P<post>[0-9a-z]+)/[^/]*/(?P<comment>[0-9a-z]+)")
_WHEN = re.compile(r"\d{1,11}(\.\d{1,6})?")
_NAME = re.compile(r"t[14]_[0-9a-z]{1,13}")
MAX_ITEMS = MAX_PAGES * 100  # a Reddit listing holds at most 1,000 items, 100 a page
EXAMPLE = "1795770000.000,t1_o5abcde"
_WHY = {"username_mention": "mention", "comment_reply": "reply", "post_reply": "reply"}


def to_post(d: dict[str, Any]) -> Post | None:
    context = str(d.get("context") or "").split("?", 1)[0]
    match = _CONTEXT.search(context)
    if not d.get("was_comment") or match is None:
        return None
    author = d.get("author")
    return Post(
        id=match["post"],
        platform="reddit",
        title=str(d.get("link_title") or ""),
        url=WEB + context[: match.start("comment")],  # the thread: where a reply lands
        body=str(d.get("body") or ""),
        author=str(getattr(author, "name", author) or ""),
        tags=[_WHY.get(str(d.get("type") or ""), "mention")],
        likes=int(d.get("score") or 0),
        comments_count=int(d.get("num_comments") or 0),
        published_at=iso(d.get("created_utc")),
        raw={k: v for k, v in d.items() if k != "_reddit"},
    )


def parse_key(text: str) -> Key | None:
    when, comma, name = text.partition(",")
    if not _WHEN.fullmatch(when) or (comma and not _NAME.fullmatch(name)):
        return None
    return (_when(float(when)), name if comma else LAST)


def key_text(key: Key) -> str:
    # As many decimals as the key holds, so the cursor names exactly the item it came from.
    when = f"{float(key[0]):.6f}".rstrip("0").rstrip(".")
    return when if key[1] == LAST else f"{when},{key[1]}"


def _when(epoch: float) -> str:
    return f"{epoch:020.6f}"  # fixed width: text order is time order


async def fetch_mentions(client: RedditClient, since: str | None, limit: int) -> MentionList:
    client.require_account()
    cursor = parse_cursor(since, parse_key, EXAMPLE)
    if cursor.resume is not None:  # Reddit's boxes end within the bound: we never hand one out
        raise errors.invalid_input(
            f"since must be the next_since of an earlier mentions call (like {EXAMPLE!r}); "
            f"got {since!r}."
        )

    async def boxes(reddit: asyncpraw.Reddit) -> Back[Post]:
        back: Back[Post] = Back()
        inbox = reddit.inbox
        for box in (inbox.mentions, inbox.comment_replies, inbox.submission_replies):
            async for item in box(limit=MAX_ITEMS):
                d = vars(item)
                key = (_when(float(d.get("created_utc") or 0)), str(d.get("name") or ""))
                if cursor.seen is not None and key[0] < cursor.seen[0]:
                    break  # newest first: the rest of this box is older than the cursor
                post = to_post(d)
                if post is not None and (cursor.seen is None or key > cursor.seen):
                    back.found.setdefault(key, post)
        return back

    back = await client.run("reading the inbox", boxes, missing="inbox")
    return hand_out(back, cursor, limit, key_text)
