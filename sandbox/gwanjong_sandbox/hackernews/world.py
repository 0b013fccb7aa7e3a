"""The corpus as Hacker News items: Firebase's shapes, with HN's rudeness kept.

Every story and comment is an item with a unique integer id; an item names its replies in
``kids`` (ranked display order) and its ``parent``. What the real API serves and a client
must survive is here too: a deleted story (``{"id", "deleted": true, "time", "type"}``), a
deleted comment that keeps its ``kids``, a dead (flagged) comment that still carries its
``by`` and ``text``, a kid id whose item is ``null`` (missing), and the same in the front
page's ids. Text is HN's HTML: ``<p>`` between paragraphs, entities such as ``&#x27;`` and
``&#x2F;``, links shown cut short.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from gwanjong_sandbox.corpus import Node, Thread, build_corpus, walk

ME = "gwanjong_bot"
FIRST_ID = 42_000_001
#: an id no item has: Firebase answers ``null`` for it
MISSING = 41_999_999
#: extra replies only HN's thread gets, each to be skipped by a client (see `_rude`)
RUDE = ("hn-dead", "hn-deleted-leaf", "hn-missing")


def unix(thread: Thread, minutes: int = 0) -> int:
    return int(thread.created.timestamp()) + minutes * 60


def hn_html(text: str) -> str:
    """Plain text the way HN stores it: escaped the way HN escapes (``'`` and ``/`` as hex
    entities), paragraphs joined by ``<p>`` with no closing tag."""
    escaped = html.escape(text, quote=True).replace("/", "&#x2F;")
    return "<p>".join(escaped.split("\n\n"))


@dataclass
class World:
    items: dict[int, dict[str, Any]] = field(default_factory=lambda: {})
    #: corpus key -> item id (stories and comments)
    by_key: dict[str, int] = field(default_factory=lambda: {})
    #: story ids, in the corpus's order
    stories: list[int] = field(default_factory=lambda: [])
    #: username -> item ids they submitted
    submitted: dict[str, list[int]] = field(default_factory=lambda: {})
    #: item id -> the story it belongs to (for Algolia's story_id and story_title)
    story_of: dict[int, int] = field(default_factory=lambda: {})
    _next: int = FIRST_ID

    def take_id(self) -> int:
        self._next += 1
        return self._next - 1

    def add(self, item: dict[str, Any], story: int) -> None:
        self.items[item["id"]] = item
        self.story_of[item["id"]] = story
        if item.get("by"):
            self.submitted.setdefault(item["by"], []).append(item["id"])


def build_world() -> World:
    world = World()
    for thread in build_corpus(ME):
        _add_thread(world, thread)
    return world


def _add_thread(world: World, thread: Thread) -> None:
    story_id = world.take_id()
    world.by_key[thread.key] = story_id
    world.stories.append(story_id)
    if thread.deleted:  # what Firebase keeps of a deleted story
        world.add(
            {"id": story_id, "deleted": True, "time": unix(thread), "type": "story"}, story_id
        )
        return
    kids = [_add_comment(world, node, thread, story_id, story_id) for node in thread.comments]
    if thread.key == "deleted-comments":
        kids += _rude(world, thread, story_id)
    body = thread.body.replace("{me}", ME)
    story: dict[str, Any] = {
        "by": thread.author,
        "descendants": sum(1 for n, _d, _p in walk(thread.comments) if not n.deleted),
        "id": story_id,
        "kids": kids,
        "score": thread.likes,
        "time": unix(thread),
        "title": thread.title,
        "type": "story",
    }
    if thread.key in ("rust-async", "emoji-post"):  # link stories: a url, no text
        story["url"] = f"https://blog.example.com/{thread.key}"
        story["text"] = hn_html(body)  # HN keeps both when the submitter gave both
    else:  # Ask HN style: text, no url
        story["text"] = hn_html(body)
    world.add(story, story_id)


def _add_comment(world: World, node: Node, thread: Thread, parent: int, story: int) -> int:
    item_id = world.take_id()
    world.by_key[node.key] = item_id
    kids = [_add_comment(world, c, thread, item_id, story) for c in node.children]
    when = unix(thread, node.minutes)
    if node.deleted:  # a deleted comment keeps its place and its replies, nothing else
        item: dict[str, Any] = {"deleted": True, "id": item_id, "parent": parent, "time": when}
        item["type"] = "comment"
        if kids:
            item["kids"] = kids
        world.add(item, story)
        return item_id
    item = {
        "by": node.author,
        "id": item_id,
        "parent": parent,
        "text": hn_html(node.body.replace("{me}", ME)),
        "time": when,
        "type": "comment",
    }
    if kids:  # Firebase leaves `kids` out, rather than empty, on a comment without replies
        item["kids"] = kids
    world.add(item, story)
    return item_id


def _rude(world: World, thread: Thread, story: int) -> list[int]:
    """Replies HN's page does not show: a dead (flagged) one, a deleted leaf, and an id
    whose item is ``null``."""
    dead = world.take_id()
    world.add(
        {
            "by": "spam_sam",
            "dead": True,
            "id": dead,
            "parent": story,
            "text": "Buy cheap followers at example&#x2F;spam",
            "time": unix(thread, 40),
            "type": "comment",
        },
        story,
    )
    leaf = world.take_id()
    world.add(
        {"deleted": True, "id": leaf, "parent": story, "time": unix(thread, 45), "type": "comment"},
        story,
    )
    world.by_key.update({"hn-dead": dead, "hn-deleted-leaf": leaf, "hn-missing": MISSING})
    return [dead, leaf, MISSING]


def user(world: World, name: str) -> dict[str, Any] | None:
    """Firebase's user record; ``null`` for a name HN does not know."""
    ids = world.submitted.get(name)
    if ids is None:
        return None
    return {
        "about": "Testing gwanjong against the sandbox." if name == ME else "",
        "created": 1_700_000_000,
        "id": name,
        "karma": 1 + len(ids),
        "submitted": sorted(ids, key=lambda i: world.items[i].get("time", 0), reverse=True),
    }


def front_page(world: World) -> list[int]:
    """``topstories``: the ranked ids, with a deleted story and a missing id among them
    (the real list lags behind deletions)."""
    live = [i for i in world.stories if not world.items[i].get("deleted")]
    ranked = sorted(live, key=lambda i: world.items[i]["score"], reverse=True)
    gone = [i for i in world.stories if world.items[i].get("deleted")]
    return [*ranked[:2], *gone, MISSING, *ranked[2:]][:500]
