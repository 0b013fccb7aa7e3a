"""``GET /message/inbox`` (and ``unread``, ``mentions``, ``comments``, ``selfreply``) for
the Reddit emulator, in the shape of payloads/reddit/inbox.json.

Derived from the stored threads: a comment answering one of our comments is a
``comment reply``, one answering our post a ``post reply``, one naming ``u/<us>`` a
``username mention``. Inbox items are t1 things with ``was_comment``, ``subject``,
``context``, ``link_title``, ``dest`` and ``new`` (but no ``link_id``, as on Reddit).
Private messages (t4, a flood's noise) are in ``inbox`` and ``unread`` only, as on Reddit.
Newest first; ``after``/``before`` are fullnames and ``limit`` is 1-100 (default 25).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from gwanjong_sandbox.reddit.http import RedditHttp
from gwanjong_sandbox.reddit.model import RComment, md_html, user_fullname

BOXES = {
    "inbox": {"comment_reply", "post_reply", "username_mention"},
    "unread": {"comment_reply", "post_reply", "username_mention"},
    "mentions": {"username_mention"},
    "comments": {"comment_reply"},
    "selfreply": {"post_reply"},
}


def _kind(emulator: RedditHttp, c: RComment, me: str) -> str:
    if c.deleted or c.author.lower() == me.lower():
        return ""
    if c.parent.startswith("t1_"):
        parent = emulator.comments.get(c.parent[3:])
        if parent is not None and parent.author.lower() == me.lower():
            return "comment_reply"
    else:
        link = emulator.links.get(c.parent[3:])
        if link is not None and link.author.lower() == me.lower():
            return "post_reply"
    return "username_mention" if f"u/{me}".lower() in c.body.lower() else ""


def _item(emulator: RedditHttp, c: RComment, kind: str, me: str) -> dict[str, Any]:
    link = emulator.links[c.link_id]
    data = emulator._t1(c, link, None, "")
    return {
        "first_message": None,
        "first_message_name": None,
        "subreddit": link.sub,
        "likes": None,
        "replies": "",
        "author_fullname": user_fullname(c.author),
        "id": c.id,
        "subject": kind.replace("_", " "),
        "associated_awarding_id": None,
        "score": c.score,
        "author": c.author,
        "num_comments": data.get("num_comments", 0),
        "parent_id": c.parent,
        "subreddit_name_prefixed": f"r/{link.sub}",
        "new": True,
        "type": kind,
        "body": c.body,
        "link_title": link.title,
        "dest": me,
        "was_comment": True,
        "body_html": md_html(c.body),
        "name": f"t1_{c.id}",
        "created": c.created,
        "created_utc": c.created,
        "context": f"{link.permalink}{c.id}/?context=3",
        "distinguished": None,
    }


async def route_inbox(
    emulator: RedditHttp,
    request: Request,
    client: str,
    user: str | None,
    headers: dict[str, str],
    box: str,
) -> Response:
    if user is None:  # application-only token: no inbox
        return emulator._forbidden(client)
    wanted = BOXES[box]
    # (created, fullname, kind, data): comments and messages in one newest-first order
    found: list[tuple[float, str, str, dict[str, Any]]] = [
        (c.created, f"t1_{c.id}", "t1", _item(emulator, c, kind, user))
        for c in emulator.comments.values()
        if c.link_id in emulator.links and (kind := _kind(emulator, c, user)) in wanted
    ]
    if box in ("inbox", "unread"):
        found += [(m["created_utc"], m["name"], "t4", m) for m in emulator.messages]
    found.sort(key=lambda entry: (entry[0], entry[1]), reverse=True)
    names = [entry[1] for entry in found]
    q = request.query_params
    try:
        limit = max(1, min(100, int(q.get("limit", "25"))))
    except ValueError:
        limit = 25
    start = 0
    if q.get("after") in names:
        start = names.index(q["after"]) + 1
    end = start + limit
    if q.get("before") in names:
        end = names.index(q["before"])
        start = max(0, end - limit)
    chunk = found[start:end]
    data = {
        "after": names[end - 1] if chunk and end < len(found) else None,
        "dist": len(chunk),
        "modhash": None,
        "geo_filter": "",
        "children": [{"kind": kind, "data": data} for _t, _n, kind, data in chunk],
        "before": None,
    }
    return emulator._json({"kind": "Listing", "data": data}, headers)
