"""A thread's comment tree from Firebase, flattened depth-first with parent ids and depth.

Firebase has no tree call: an item names its replies (``kids``, in HN's ranked order) and
each reply is one more request. The tree is read level by level, each level's items at
once (``concurrency`` in flight), until ``limit`` live comments are known or the tree ends.

What HN itself hides is skipped: missing items (``null``), deleted and dead (flagged)
ones. A deleted or dead comment that still has live replies keeps its place as an empty
comment (no author, no text), as HN's page shows "[deleted]", so its replies keep their
parent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gwanjong_hackernews.adapter import gone, iso, text_of
from gwanjong_shared.contract.models import Comment

if TYPE_CHECKING:
    from gwanjong_hackernews.adapter import HackernewsAdapter


@dataclass
class Node:
    item: dict[str, Any]
    kids: list[Node] = field(default_factory=lambda: [])

    @property
    def live(self) -> bool:
        return not gone(self.item)

    def shown(self) -> bool:
        """Live, or holding a live reply somewhere below."""
        return self.live or any(k.shown() for k in self.kids)


def _kid_ids(item: dict[str, Any]) -> list[int]:
    return [k for k in item.get("kids") or [] if isinstance(k, int) and not isinstance(k, bool)]


async def fetch_tree(adapter: HackernewsAdapter, root: dict[str, Any], limit: int) -> list[Comment]:
    roots: list[Node] = []
    level: list[tuple[int, list[Node]]] = [(k, roots) for k in _kid_ids(root)]
    live = 0
    while level and live < limit:
        found = await adapter.items([item_id for item_id, _ in level])
        below: list[tuple[int, list[Node]]] = []
        for (_, siblings), item in zip(level, found, strict=True):
            if item is None:  # HN answers null for an item that is not there: skip it
                continue
            node = Node(item)
            siblings.append(node)
            live += node.live
            below += [(k, node.kids) for k in _kid_ids(item)]
        level = below
    return _flatten(adapter.platform, str(root["id"]), roots, limit)


def _flatten(platform: str, post_id: str, roots: list[Node], limit: int) -> list[Comment]:
    out: list[Comment] = []
    stack: list[tuple[Node, str | None, int]] = [(n, None, 0) for n in reversed(roots)]
    while stack and len(out) < limit:
        node, parent, depth = stack.pop()
        if not node.shown():
            continue
        item = node.item
        out.append(
            Comment(
                id=str(item["id"]),
                platform=platform,
                post_id=post_id,
                parent_id=parent,
                author=str(item.get("by") or "") if node.live else "",
                body=text_of(item.get("text")) if node.live else "",
                published_at=iso(item.get("time")),
                depth=depth,
                raw={k: v for k, v in item.items() if k != "kids"} if node.live else None,
            )
        )
        stack.extend((k, str(item["id"]), depth + 1) for k in reversed(node.kids))
    return out
