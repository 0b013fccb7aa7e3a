"""``app.bsky.notification.listNotifications`` for the Bluesky emulator.

The AppView's answer, derived from the stored posts: ``mention`` for a post whose facets
name the viewer's DID, ``reply`` for a reply to one of the viewer's posts
(``reasonSubject`` = that post), ``quote`` for a post embedding one of the viewer's posts.
Newest first; the cursor is the ``indexedAt`` of the last item sent (the real one is an
opaque timestamp string too). ``reasons`` filters, as the lexicon says. The quote it finds
for us is seeded by ``state.BlueskyState._seed_quote``; a flood's likes, reposts and
follows (``state.BlueskyState._noise``) are listed among them.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from gwanjong_sandbox.bluesky.http import BlueskyHttp
from gwanjong_sandbox.bluesky.model import StoredPost

MENTION = "app.bsky.richtext.facet#mention"


def _reason(emulator: BlueskyHttp, post: StoredPost, me: str) -> tuple[str, str | None]:
    if post.author == me or post.gone is not None:
        return "", None
    embed = post.record.get("embed") or {}
    quoted = (embed.get("record") or {}).get("uri") or ""
    if quoted and quoted in emulator.posts and emulator.posts[quoted].author == me:
        return "quote", quoted
    if post.parent is not None and emulator.posts[post.parent].author == me:
        return "reply", post.parent
    for facet in post.record.get("facets") or []:
        for feature in facet.get("features") or []:
            if feature.get("$type") == MENTION and feature.get("did") == me:
                return "mention", None
    return "", None


async def list_notifications(emulator: BlueskyHttp, request: Request) -> Response:
    viewer = emulator._viewer(request)
    if isinstance(viewer, Response):
        return viewer
    limit = emulator._int(request, "limit", 50, 1, 100)
    if limit is None:
        return emulator._error(400, "InvalidRequest", "Invalid limit")
    cursor = request.query_params.get("cursor")
    wanted = set(request.query_params.getlist("reasons"))
    items: list[dict[str, Any]] = []
    for post in emulator.posts.values():
        reason, subject = _reason(emulator, post, viewer)
        if not reason or (wanted and reason not in wanted):
            continue
        if cursor and post.indexed_at >= cursor:
            continue
        item: dict[str, Any] = {
            "uri": post.uri,
            "cid": post.cid,
            "author": emulator._profile_basic(post.author, viewer),
            "reason": reason,
            "record": post.record,
            "isRead": False,
            "indexedAt": post.indexed_at,
            "labels": [],
        }
        if subject is not None:
            item["reasonSubject"] = subject
        items.append(item)
    for note in emulator.notes:
        if (wanted and note["reason"] not in wanted) or (cursor and note["indexedAt"] >= cursor):
            continue
        items.append({**note, "author": emulator._profile_basic(note["author"], viewer)})
    items.sort(key=lambda n: n["indexedAt"], reverse=True)
    page = items[:limit]
    body: dict[str, Any] = {"notifications": page, "priority": False}
    if len(items) > limit:
        body["cursor"] = page[-1]["indexedAt"]
    return emulator._ok(body)
