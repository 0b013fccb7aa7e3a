"""Dev.to's inbox: comments on our own articles.

Forem has no notifications API, so the inbox is rebuilt from what the API does show: our
articles (`/api/articles/me`, paged 100 at a time) and each one's comment tree
(`/api/comments?a_id=`). A comment is ours to answer when it replies to our article or to
one of our comments and none of its replies is ours. Each item's id is the article's (what
get_post, and a person replying by hand, act on); its url is the comment itself.

The trees of our ARTICLES most recent articles with comments are read on every call (an
older thread rarely wakes up, and Forem allows 3 reads a second), and the oldest unseen
comments are handed out first (``gwanjong_shared.kit.inbox``). The cursor is
``<created_at>,<id_code>`` of the newest comment handed out; a bare ``created_at`` (what
this server handed out before) still works.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from gwanjong_devto.client import PLATFORM, DevtoClient
from gwanjong_devto.client import html_text as strip_html
from gwanjong_shared.contract import MentionList, errors
from gwanjong_shared.contract.models import Post
from gwanjong_shared.kit.inbox import (
    LAST,
    MAX_PAGES,
    Back,
    Key,
    hand_out,
    iso_key,
    key_text,
    parse_cursor,
)

ARTICLES = 10  # our most recent articles with comments: older threads rarely wake up
PER_PAGE = 100
EXAMPLE = "2026-11-27T09:00:00Z,2a1b"
_WHEN = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?(Z|[+-]\d\d:\d\d)")
_CODE = re.compile(r"[0-9a-z]{1,20}")


def _text(node: dict[str, Any]) -> str:
    return strip_html(node.get("body_html") or "")


def unanswered(
    article: dict[str, Any], roots: list[dict[str, Any]], me: str
) -> list[tuple[dict[str, Any], str]]:
    """(comment, why) for each comment that awaits our answer, depth-first."""
    out: list[tuple[dict[str, Any], str]] = []
    stack: list[tuple[dict[str, Any], str | None]] = [(n, None) for n in reversed(roots)]
    article_author = (article.get("user") or {}).get("username", "")
    while stack:
        node, parent_author = stack.pop()
        author = (node.get("user") or {}).get("username", "")
        children = node.get("children") or []
        to_us = (parent_author or article_author) == me
        mentions = f"@{me}".lower() in _text(node).lower()
        answered = any((c.get("user") or {}).get("username") == me for c in children)
        if author and author != me and (to_us or mentions) and not answered:
            out.append((node, "reply" if to_us else "mention"))
        stack.extend((c, author) for c in reversed(children))
    return out


def parse_key(text: str) -> Key | None:
    when, comma, code = text.partition(",")
    if not _WHEN.fullmatch(when) or (comma and not _CODE.fullmatch(code)):
        return None
    try:
        return (iso_key(when), code if comma else LAST)
    except ValueError:
        return None


async def _commented(client: DevtoClient) -> list[dict[str, Any]]:
    """Our most recent articles that have comments (the list is newest first)."""
    found: list[dict[str, Any]] = []
    for page in range(1, MAX_PAGES + 1):
        articles = await client.request(
            "GET", "/api/articles/me", params={"per_page": PER_PAGE, "page": page}
        )
        found += [a for a in articles if int(a.get("comments_count") or 0) > 0]
        if len(articles) < PER_PAGE or len(found) >= ARTICLES:
            break
    return found[:ARTICLES]


async def fetch_mentions(client: DevtoClient, since: str | None, limit: int) -> MentionList:
    if not client.is_configured():
        raise errors.auth(
            "The Dev.to inbox needs our account: put DEVTO_API_KEY in the environment and "
            "restart the server."
        )
    # every call reads the same bounded set: nothing resumes
    cursor = parse_cursor(since, parse_key, EXAMPLE, resumable=False)
    me = await client.account() or ""
    back: Back[Post] = Back()
    for article in await _commented(client):
        roots = await client.request(
            "GET", "/api/comments", params={"a_id": article["id"]}, what=f"article {article['id']}"
        )
        parts = urlsplit(str(article.get("url") or ""))
        for node, why in unanswered(article, roots, me):
            created = str(node.get("created_at") or "")
            try:
                key = (iso_key(created), str(node.get("id_code") or ""))
            except ValueError:
                continue  # a comment without a time cannot be placed against the cursor
            if cursor.seen is not None and key <= cursor.seen:
                continue
            author = (node.get("user") or {}).get("username", "")
            back.found.setdefault(
                key,
                Post(
                    id=str(article["id"]),
                    platform=PLATFORM,
                    title=str(article.get("title") or ""),
                    url=f"{parts.scheme}://{parts.netloc}/{author}/comment/{node.get('id_code')}",
                    body=_text(node),
                    author=author,
                    tags=[why],
                    comments_count=int(article.get("comments_count") or 0),
                    published_at=created or None,
                    raw=node,
                ),
            )
    return hand_out(back, cursor, limit, key_text)
