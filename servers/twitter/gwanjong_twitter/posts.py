"""One shape for a post, whichever reader fetched it, and how posts become the shared models."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from gwanjong_shared.contract.models import Comment, Post

PLATFORM = "twitter"
# an @mention as twitter-text finds one: not inside a word or an e-mail address, nor after #$%&*
_MENTION = re.compile(r"(?<![\w!#$%&*@＠])[@＠](\w{1,15})(?![\w@＠]|://)", re.ASCII)


@dataclass
class XPost:
    id: str
    text: str = ""
    author: str = ""  # username, "" when unknown or deleted
    author_id: str = ""
    created_at: str | None = None  # ISO 8601
    conversation_id: str = ""
    parent_id: str | None = None  # the post this one replies to
    quoted_author: str = ""  # username of the author of the quoted post
    quoted_author_id: str = ""
    mentions: list[str] = field(default_factory=list)  # usernames, as written
    hashtags: list[str] = field(default_factory=list)
    likes: int = 0
    replies: int = 0
    reply_settings: str = "everyone"  # everyone | mentionedUsers | following | ...
    deleted: bool = False
    raw: dict[str, Any] | None = None

    @property
    def url(self) -> str:
        return f"https://x.com/{self.author or 'i'}/status/{self.id}"

    def mentions_user(self, username: str) -> bool:
        name = username.lower()
        return bool(name) and any(m.lower().lstrip("@") == name for m in self.mentions)

    def summons(self, username: str, user_id: str) -> bool:
        """X's 2026 reply rule: does this post mention the account or quote one of its posts?"""
        name = username.lower()
        if self.mentions_user(username):
            return True
        if user_id and self.quoted_author_id == user_id:
            return True
        return bool(name) and self.quoted_author.lower() == name


def strangers(text: str, *asked: str) -> str | None:
    """Why ``text`` may not go out: it @mentions someone but our account and the author it
    answers, whom X would notify, unasked."""
    others = sorted({m.lower() for m in _MENTION.findall(text)} - {a.lower() for a in asked})
    if not others:
        return None
    return (
        f"The text mentions {', '.join(f'@{h}' for h in others)}, who did not summon us: since "
        "2026-02-23 X restricts a program's @mentions as it does its replies, and its automation "
        "rules forbid unsolicited mentions. Leave it out (a reply may mention the author it "
        "answers)."
    )


def expand_links(text: str, links: list[dict[str, Any]]) -> str:
    """The text with each t.co link as the link it stands for (``entities.urls``): X serves
    every link as t.co, so a read-back of what we sent, and the model, see it as written."""
    for link in links:
        short, full = link.get("url"), link.get("expanded_url")
        if isinstance(short, str) and isinstance(full, str) and short and full:
            text = text.replace(short, full)
    return text


def compose(title: str, body: str) -> str:
    """X posts have no title: a title becomes the first paragraph (validate counts the same)."""
    return f"{title.strip()}\n\n{body}" if title.strip() else body


def web_time_to_iso(value: str | None) -> str | None:
    """``Wed Jan 15 10:00:00 +0000 2025`` (web API) -> ``2025-01-15T10:00:00.000Z``."""
    if not value:
        return None
    try:
        when = datetime.strptime(value, "%a %b %d %H:%M:%S %z %Y")
    except ValueError:
        return value
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def to_post(p: XPost) -> Post:
    return Post(
        id=p.id,
        platform=PLATFORM,
        title="",
        url=p.url,
        body=p.text,
        author=p.author,
        tags=list(p.hashtags),
        likes=p.likes,
        comments_count=p.replies,
        published_at=p.created_at,
        raw=p.raw,
    )


def flatten(
    root_id: str,
    posts: list[XPost],
    limit: int,
    *,
    orphans_to_root: bool = True,
    conversation_id: str = "",
) -> list[Comment]:
    """Depth-first, oldest first, with parent and depth. Only posts under ``root_id`` appear.

    Only replies count: a post that answers nothing, or belongs to another conversation
    than ``conversation_id`` (a quoted post riding along in ``includes``), is left out.
    A reply whose parent is not in ``posts`` (deleted and unnamed, or beyond what was
    fetched) hangs under the root at depth 0 when ``orphans_to_root`` (the root started the
    conversation, so it is an ancestor of everything); otherwise its place is unknown and it
    is left out. Deleted placeholders stand for such parents and keep their place."""
    posts = [
        p
        for p in posts
        if p.deleted
        or (
            p.parent_id is not None
            and (not conversation_id or p.conversation_id in ("", conversation_id))
        )
    ]
    known = {p.id for p in posts}
    children: dict[str, list[XPost]] = {}
    for p in posts:
        if p.id == root_id:
            continue
        if p.parent_id in known or p.parent_id == root_id:
            parent = str(p.parent_id)
        elif orphans_to_root:
            parent = root_id
        else:
            continue
        children.setdefault(parent, []).append(p)
    for kids in children.values():
        kids.sort(key=lambda k: int(k.id) if k.id.isdigit() else 0)
    out: list[Comment] = []
    stack: list[tuple[XPost, int]] = [(c, 0) for c in reversed(children.get(root_id, []))]
    while stack and len(out) < limit:
        p, depth = stack.pop()
        out.append(
            Comment(
                id=p.id,
                platform=PLATFORM,
                post_id=root_id,
                parent_id=None if depth == 0 else p.parent_id,
                author="" if p.deleted else p.author,
                body="[deleted]" if p.deleted else p.text,
                likes=p.likes,
                published_at=p.created_at,
                depth=depth,
                url="" if p.deleted else p.url,
                raw=p.raw,
            )
        )
        stack.extend((c, depth + 1) for c in reversed(children.get(p.id, [])))
    return out
