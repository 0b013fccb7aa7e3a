"""Bluesky post views and thread nodes (plain dicts from the SDK's models) as Post/Comment."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import quote

from gwanjong_shared.contract.models import Comment, Post

log = logging.getLogger(__name__)

PLATFORM = "bluesky"
THREAD_VIEW = "app.bsky.feed.defs#threadViewPost"
NOT_FOUND = "app.bsky.feed.defs#notFoundPost"
BLOCKED = "app.bsky.feed.defs#blockedPost"
MENTION = "app.bsky.richtext.facet#mention"
TAG = "app.bsky.richtext.facet#tag"


def dig(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def authority(uri: str) -> str:
    """The DID (or handle) part of an at:// URI; "" for anything else."""
    return uri.split("/")[2] if uri.startswith("at://") and uri.count("/") >= 2 else ""


def post_url(view: dict[str, Any]) -> str:
    author = view.get("author") or {}
    handle = author.get("handle") or ""
    who = handle if handle and handle != "handle.invalid" else author.get("did", "")
    return f"https://bsky.app/profile/{quote(who)}/post/{view['uri'].rsplit('/', 1)[1]}"


def record_tags(record: dict[str, Any]) -> list[str]:
    found = [
        str(feature.get("tag"))
        for facet in record.get("facets") or []
        for feature in facet.get("features") or []
        if feature.get("$type") == TAG and feature.get("tag")
    ]
    found += [str(t) for t in record.get("tags") or []]
    return list(dict.fromkeys(found))


def to_post(view: dict[str, Any], body: str | None = None) -> Post:
    record = view.get("record") or {}
    author = view.get("author") or {}
    return Post(
        id=view["uri"],
        platform=PLATFORM,
        title="",
        url=post_url(view),
        body=body if body is not None else str(record.get("text") or ""),
        author=str(author.get("handle") or author.get("did") or ""),
        tags=record_tags(record),
        likes=int(view.get("likeCount") or 0),
        comments_count=int(view.get("replyCount") or 0),
        published_at=record.get("createdAt") or view.get("indexedAt"),
        raw=view,
    )


def to_comment(
    post_id: str, node: dict[str, Any], parent: str | None, depth: int, hidden: set[str]
) -> Comment | None:
    kind = node.get("$type")
    if kind in (NOT_FOUND, BLOCKED):  # deleted or blocked: keeps its place, shows nothing
        return Comment(
            id=str(node.get("uri") or ""),
            platform=PLATFORM,
            post_id=post_id,
            parent_id=parent,
            depth=depth,
            raw=node,
        )
    if kind != THREAD_VIEW:
        log.info("bluesky: skipped a thread node of type %r", kind)
        return None
    view = node["post"]
    raw = {k: v for k, v in node.items() if k != "replies"}
    if view["uri"] in hidden:  # hidden by the thread's author: keep the place, not the text
        return Comment(
            id=view["uri"],
            platform=PLATFORM,
            post_id=post_id,
            parent_id=parent,
            depth=depth,
            raw={**raw, "hiddenByAuthor": True},
        )
    record = view.get("record") or {}
    return Comment(
        id=view["uri"],
        platform=PLATFORM,
        post_id=post_id,
        parent_id=parent,
        author=str(dig(view, "author", "handle") or ""),
        body=str(record.get("text") or ""),
        likes=int(view.get("likeCount") or 0),
        published_at=record.get("createdAt") or view.get("indexedAt"),
        depth=depth,
        url=post_url(view),  # a reply is a post: the same bsky.app link
        raw=raw,
    )
