"""Dev.to's inbox: comments on our own articles.

Forem has no notifications API, so the inbox is rebuilt from what the API does show: our
articles (`/api/articles/me`) and each one's comment tree (`/api/comments?a_id=`). A
comment is ours to answer when it replies to our article or to one of our comments and
none of its replies is ours. Each item's id is the article's (what get_post, and a person
replying by hand, act on); its url is the comment itself.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from gwanjong_devto.adapter import DevtoAdapter
from gwanjong_devto.adapter import _text as strip_html
from gwanjong_shared.contract import MentionList, errors
from gwanjong_shared.contract.models import Post

ARTICLES = 10  # our most recent articles with comments: older threads rarely wake up


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


async def fetch_mentions(adapter: DevtoAdapter, since: str | None, limit: int) -> MentionList:
    if not adapter.is_configured():
        raise errors.auth(
            "The Dev.to inbox needs our account: put DEVTO_API_KEY in the environment and "
            "restart the server."
        )
    me = await adapter.account() or ""
    articles = await adapter._request("GET", "/api/articles/me", params={"per_page": 30})
    found: list[Post] = []
    for article in [a for a in articles if int(a.get("comments_count") or 0) > 0][:ARTICLES]:
        roots = await adapter._request(
            "GET", "/api/comments", params={"a_id": article["id"]}, what=f"article {article['id']}"
        )
        parts = urlsplit(str(article.get("url") or ""))
        for node, why in unanswered(article, roots, me):
            created = str(node.get("created_at") or "")
            if since and created <= since:
                continue
            author = (node.get("user") or {}).get("username", "")
            found.append(
                Post(
                    id=str(article["id"]),
                    platform=adapter.platform,
                    title=str(article.get("title") or ""),
                    url=f"{parts.scheme}://{parts.netloc}/{author}/comment/{node.get('id_code')}",
                    body=_text(node),
                    author=author,
                    tags=[why],
                    comments_count=int(article.get("comments_count") or 0),
                    published_at=created or None,
                    raw=node,
                )
            )
    found.sort(key=lambda p: p.published_at or "", reverse=True)
    newest = max([p.published_at or "" for p in found] + [since or ""])
    return MentionList(posts=found[:limit], next_since=newest)
