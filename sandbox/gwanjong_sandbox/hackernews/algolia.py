"""The Algolia HN Search API over the same items: ``/api/v1/search`` (relevance, then
points) and ``/api/v1/search_by_date`` (newest first), in Algolia's real envelope and hit
shapes (recorded ones: tests/servers/hackernews/payloads/).

Tags filter as the docs say: comma-separated tags are ANDed, a parenthesised group is
ORed (``author_pg,(story,poll)``). Deleted and dead items are not indexed. Paging is
0-based, 20 hits by default, and stops at 1,000 hits as the real index does.
"""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime
from typing import Any

from gwanjong_sandbox.hackernews.world import World

MAX_HITS = 1000
_TAG_GROUP = re.compile(r"\(([^)]*)\)|([^,()]+)")


def parse_tags(text: str) -> list[set[str]]:
    """``a,(b,c)`` -> [{a}, {b, c}]: every group must match, any tag within a group."""
    groups: list[set[str]] = []
    for m in _TAG_GROUP.finditer(text):
        inside = m.group(1) if m.group(1) is not None else m.group(2)
        tags = {t.strip() for t in inside.split(",") if t.strip()}
        if tags:
            groups.append(tags)
    return groups


def _iso(unix: int) -> str:
    return datetime.fromtimestamp(unix, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _highlight(value: str | None, words: list[str]) -> dict[str, Any]:
    text = value or ""
    hit = [w for w in words if w and w in text.lower()]
    marked = text
    for w in hit:
        marked = re.sub(re.escape(w), lambda m: f"<em>{m.group(0)}</em>", marked, flags=re.I)
    level = "none" if not hit else ("full" if len(hit) == len(words) else "partial")
    return {"value": marked, "matchLevel": level, "matchedWords": hit}


def _front(world: World) -> set[int]:
    live = [i for i in world.stories if not world.items[i].get("deleted")]
    return set(sorted(live, key=lambda i: world.items[i]["score"], reverse=True)[:30])


def hit(world: World, item: dict[str, Any], words: list[str], front: set[int]) -> dict[str, Any]:
    when = int(item["time"])
    story = world.items[world.story_of[item["id"]]]
    kids = list(item.get("kids") or [])
    if item["type"] == "comment":
        tags = ["comment", f"author_{item['by']}", f"story_{story['id']}"]
        return {
            "_highlightResult": {
                "author": _highlight(item["by"], words),
                "comment_text": _highlight(item.get("text"), words),
                "story_title": _highlight(story.get("title"), words),
                "story_url": _highlight(story.get("url"), words),
            },
            "_tags": tags,
            "author": item["by"],
            "children": kids,
            "comment_text": item.get("text"),
            "created_at": _iso(when),
            "created_at_i": when,
            "objectID": str(item["id"]),
            "parent_id": item["parent"],
            "points": None,  # Algolia has no comment score
            "story_id": story["id"],
            "story_title": story.get("title"),
            "story_url": story.get("url"),
            "updated_at": _iso(when),
        }
    tags = ["story", f"author_{item['by']}", f"story_{item['id']}"]
    if item["id"] in front:
        tags.append("front_page")
    return {
        "_highlightResult": {
            "author": _highlight(item["by"], words),
            "title": _highlight(item.get("title"), words),
            **({"url": _highlight(item["url"], words)} if item.get("url") else {}),
            **({"story_text": _highlight(item["text"], words)} if item.get("text") else {}),
        },
        "_tags": tags,
        "author": item["by"],
        "children": kids,
        "created_at": _iso(when),
        "created_at_i": when,
        "num_comments": item.get("descendants", 0),
        "objectID": str(item["id"]),
        "points": item.get("score", 0),
        "story_id": item["id"],
        "story_text": item.get("text"),
        "title": item.get("title"),
        "updated_at": _iso(when),
        **({"url": item["url"]} if item.get("url") else {}),
    }


def search(
    world: World, query: str, tags: str, page: int, per_page: int, by_date: bool, params: str
) -> tuple[int, dict[str, Any]]:
    """(status, body) for one search request."""
    if (page + 1) * per_page > MAX_HITS and page > 0:
        return 400, {
            "message": "you can only fetch the 1000 hits for this query. You can extend the "
            "number of hits returned via the paginationLimitedTo index parameter or use the "
            "browse method. You can read our FAQ for more details about browsing: "
            "https://www.algolia.com/doc/faq/index-configuration/how-can-i-retrieve-all-the-records-in-my-index",
            "status": 400,
        }
    words = [w.lower() for w in query.split()]
    groups = parse_tags(tags)
    front = _front(world)
    scored: list[tuple[int, dict[str, Any]]] = []
    for item in world.items.values():
        if item.get("deleted") or item.get("dead") or item.get("type") not in ("story", "comment"):
            continue  # not in the index
        h = hit(world, item, words, front)
        if not all(g & set(h["_tags"]) for g in groups):
            continue
        text = html.unescape(
            " ".join(str(item.get(k) or "") for k in ("title", "text", "url", "by"))
        ).lower()
        if not all(w in text for w in words):  # Algolia: every word must match
            continue
        scored.append((sum(text.count(w) for w in words), h))
    if by_date:
        scored.sort(key=lambda s: -s[1]["created_at_i"])
    else:
        scored.sort(key=lambda s: (-s[0], -(s[1]["points"] or 0)))
    hits = [h for _, h in scored][:MAX_HITS]
    chunk = hits[page * per_page : (page + 1) * per_page]
    nb_pages = min(-(-len(hits) // per_page), MAX_HITS // per_page) if per_page else 0
    return 200, {
        "exhaustive": {"nbHits": True, "typo": True},
        "exhaustiveNbHits": True,
        "exhaustiveTypo": True,
        "hits": chunk,
        "hitsPerPage": per_page,
        "nbHits": len(hits),
        "nbPages": nb_pages,
        "page": page,
        "params": params,
        "processingTimeMS": 1,
        "processingTimingsMS": {"request": {"roundTrip": 1}},
        "query": query,
        "serverTimeMS": 2,
    }
