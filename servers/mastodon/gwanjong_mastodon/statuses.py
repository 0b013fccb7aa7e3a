"""Mastodon statuses as the shared models: HTML to text, content warnings and visibility
kept, and a status's context as the comment tree."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from html.parser import HTMLParser
from typing import Any
from urllib.parse import unquote, urlsplit

from gwanjong_shared.contract.models import Comment, Post

DELETED = "[deleted]"


class _Text(HTMLParser):
    """Mastodon's status HTML (``<p>``, ``<br>``, links cut with invisible spans, mention
    and hashtag links) as plain text: a link is its full URL, a mention its ``@user``.

    Remote HTML keeps the classes ``mention`` and ``hashtag`` on any link (Mastodon's
    sanitizer allows them), so a link reads as its text only where its URL names what the
    text names (``…/@bob`` for ``@bob``, ``…/tags/rust`` for ``#Rust``); any other shows
    its text and then its URL, so no link hides where it goes."""

    def __init__(self, handles: Mapping[str, str]) -> None:
        super().__init__(convert_charrefs=True)
        self.handles = handles  # a mentioned account's URL -> its handle (acct)
        self.out: list[str] = []
        # the open links: (the URL, where its text starts in out, whether its text is kept)
        self.links: list[tuple[str | None, int, bool]] = []
        self.paragraphs = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self.out.append("\n")
        elif tag == "p":
            if self.paragraphs:
                self.out.append("\n\n")
            self.paragraphs += 1
        elif tag == "a":
            a = dict(attrs)
            href = a.get("href") or None
            classes = (a.get("class") or "").split()
            # mentions and hashtags read as their text; other links as the whole URL
            keep_text = "mention" in classes or "hashtag" in classes or href is None
            self.links.append((href, len(self.out), keep_text))
            if not keep_text:
                self.out.append(href or "")

    def handle_endtag(self, tag: str) -> None:
        if tag != "a" or not self.links:
            return
        href, start, keep_text = self.links.pop()
        if keep_text and href is not None and href in self.handles:  # as it was written
            self.out[start:] = [f"@{self.handles[href]}"]
        elif keep_text and href is not None and not _names(href, "".join(self.out[start:])):
            self.out.append(f" ({href})")

    def handle_data(self, data: str) -> None:
        if self.links and not self.links[-1][2]:
            return  # the link's shortened text: the URL is already written
        self.out.append(data)


def _names(href: str, text: str) -> bool:
    """Whether ``href``'s last path segment names what a mention or hashtag ``text`` names
    (``https://a.example/@bob`` and ``@bob``; ``https://a.example/tags/rust`` and ``#Rust``)."""
    name = text.strip().lstrip("@#").split("@")[0].casefold()
    segment = unquote(urlsplit(href).path.rstrip("/").rsplit("/", 1)[-1]).lstrip("@")
    return bool(name) and segment.casefold() == name


def text_of(markup: str | None, mentions: object = None) -> str:
    """``markup`` as text; ``mentions`` (a status's list) turns each mention into the whole
    handle (Mastodon's HTML shows a remote ``@ann@other.example`` as ``@ann``)."""
    if not markup:
        return ""
    handles = {
        str(m.get("url")): str(m.get("acct"))
        for m in (mentions if isinstance(mentions, list) else [])
        if isinstance(m, Mapping) and m.get("url") and m.get("acct")
    }
    parser = _Text(handles)
    parser.feed(markup)
    parser.close()
    return "".join(parser.out).strip()


def iso(value: object) -> str | None:
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    return str(value) if value else None


def acct(status: Mapping[str, Any]) -> str:
    account = status.get("account") or {}
    return str(account.get("acct") or account.get("username") or "")


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def link_of(status: Mapping[str, Any], local: str = "") -> str:
    """The status's link. Its ``url`` is its server's word (a remote status may claim any
    page, another site's post too), so it is kept only on the host of its ``uri`` (the
    ActivityPub id) or of its author's account; otherwise the instance's own page for it
    (``local``/@acct/id, as Mastodon's web UI links it), or its ``uri``."""
    url, uri = str(status.get("url") or ""), str(status.get("uri") or "")
    handle = acct(status)
    domain = handle.partition("@")[2].lower()
    if url and _host(url) in {h for h in (_host(uri), domain) if h}:
        return url
    if local and handle and status.get("id"):
        return f"{local.rstrip('/')}/@{handle}/{status['id']}"
    return uri if _host(uri) else ""


def post_of(
    status: Mapping[str, Any], platform: str, tags: list[str] | None = None, local: str = ""
) -> Post:
    """A status as a Post: a content warning is its title (``CW: …``), a narrower than
    public visibility is a tag (``visibility:private``), a boost is what it boosts; its
    link as :func:`link_of` trusts it (``local``: the instance's web address)."""
    inner = status.get("reblog") or status
    cw = str(inner.get("spoiler_text") or "")
    visibility = str(inner.get("visibility") or "public")
    if tags is None:
        tags = [str(t.get("name")) for t in inner.get("tags") or [] if t.get("name")]
        if visibility != "public":
            tags.append(f"visibility:{visibility}")
    return Post(
        id=str(inner["id"]),
        platform=platform,
        title=f"CW: {cw}" if cw else "",
        url=link_of(inner, local),
        body=text_of(inner.get("content"), inner.get("mentions")),
        author=acct(inner),
        tags=tags,
        likes=int(inner.get("favourites_count") or 0),
        comments_count=int(inner.get("replies_count") or 0),
        published_at=iso(inner.get("created_at")),
        raw=dict(inner),
    )


def comment_tree(
    post_id: str,
    status: Mapping[str, Any],
    context: Mapping[str, Any],
    platform: str,
    limit: int,
    local: str = "",
) -> list[Comment]:
    """The conversation as one flat tree, each reply after its parent: a status that is
    itself a reply sits in its thread (the ancestors below the root, then the status, then
    its descendants); a reply whose parent was deleted hangs under a ``[deleted]`` stand-in
    (Mastodon keeps ``in_reply_to_id`` on it)."""
    ancestors = list(context.get("ancestors") or [])
    root = str(ancestors[0]["id"]) if ancestors else str(status["id"])
    nodes = [*ancestors[1:], *([status] if ancestors else []), *(context.get("descendants") or [])]
    by_id = {str(n["id"]): n for n in nodes}
    children: dict[str | None, list[str]] = {}
    for sid, node in list(by_id.items()):
        parent = str(node.get("in_reply_to_id") or root)
        if parent != root and parent not in by_id:
            children.setdefault(None, []).append(parent)  # the deleted parent, at the top
            by_id.setdefault(parent, {"id": parent, "in_reply_to_id": root, "_gone": True})
        children.setdefault(None if parent == root else parent, []).append(sid)
    out: list[Comment] = []

    def visit(parent: str | None, depth: int) -> None:
        ordered = sorted(set(children.get(parent, [])), key=lambda i: (len(i), i))
        for sid in ordered:
            if len(out) >= limit:
                return
            node = by_id[sid]
            gone = bool(node.get("_gone"))
            out.append(
                Comment(
                    id=sid,
                    platform=platform,
                    post_id=post_id,
                    parent_id=parent,
                    author="" if gone else acct(node),
                    body=DELETED if gone else text_of(node.get("content"), node.get("mentions")),
                    likes=0 if gone else int(node.get("favourites_count") or 0),
                    published_at=None if gone else iso(node.get("created_at")),
                    depth=depth,
                    url="" if gone else link_of(node, local),
                    raw=None if gone else dict(node),
                )
            )
            visit(sid, depth + 1)

    visit(None, 0)
    return out
