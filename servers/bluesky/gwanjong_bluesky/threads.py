"""Reading Bluesky: post views, threads, a long post's self-thread, and comment trees."""

from __future__ import annotations

from typing import Any

from atproto_client.models.utils import get_model_as_dict

from gwanjong_bluesky.posts import BLOCKED, THREAD_VIEW, dig, to_comment, to_post
from gwanjong_bluesky.session import BlueskyClient
from gwanjong_shared.contract import CommentList, errors
from gwanjong_shared.contract.models import Comment, Post
from gwanjong_shared.kit.target_cache import TargetCache

MAX_CHAIN = 25  # how many parts of an author's self-thread get_post joins

View = dict[str, Any]


def missing(uri: str, hint: str = "search or trending") -> errors.PlatformError:
    return errors.not_found(
        f"Bluesky has no post {uri} (it may have been deleted). Check the id: use one from {hint}."
    )


async def views(client: BlueskyClient, uris: list[str]) -> dict[str, View]:
    unique = list(dict.fromkeys(uris))
    response = await client.call("fetching posts", lambda c: c.get_posts(unique))
    data = get_model_as_dict(response)
    return {view["uri"]: view for view in data.get("posts") or []}


async def target_views(
    client: BlueskyClient, cache: TargetCache[View], uris: list[str]
) -> dict[str, View]:
    """Views of the posts a validate or write acts on: kept ones from ``cache``, the rest in
    one request (and kept). Posts Bluesky does not return are absent."""
    found = {uri: view for uri in dict.fromkeys(uris) if (view := cache.get(uri)) is not None}
    wanted = [uri for uri in uris if uri not in found]
    if wanted:
        fetched = await views(client, wanted)
        for uri, view in fetched.items():
            cache.put(uri, view)
        found.update(fetched)
    return found


async def target_view(client: BlueskyClient, cache: TargetCache[View], uri: str) -> View:
    view = (await target_views(client, cache, [uri])).get(uri)
    if view is None:
        raise missing(uri)
    return view


async def thread(client: BlueskyClient, uri: str, depth: int) -> dict[str, Any]:
    response = await client.call(
        "fetching the thread",
        lambda c: c.get_post_thread(uri, depth=depth, parent_height=0),
        item=f"post {uri}",
    )
    data = get_model_as_dict(response)
    node = data.get("thread") or {}
    kind = node.get("$type")
    if kind == BLOCKED:
        raise errors.not_found(
            f"The post {uri} is hidden from us: its author blocks our "
            "account or we block theirs. Pick another post."
        )
    if kind != THREAD_VIEW:
        raise missing(uri)
    return data


def continuation(node: dict[str, Any], author: str) -> dict[str, Any] | None:
    """The author's own next part of a self-thread (their earliest direct reply)."""
    own = [
        r
        for r in node.get("replies") or []
        if r.get("$type") == THREAD_VIEW and dig(r, "post", "author", "did") == author
    ]
    own.sort(key=lambda r: str(dig(r, "post", "record", "createdAt") or ""))
    return own[0] if own else None


async def read_post(client: BlueskyClient, uri: str) -> Post:
    node = (await thread(client, uri, depth=1))["thread"]
    view = node["post"]
    author = dig(view, "author", "did")
    texts = [str(dig(view, "record", "text") or "")]
    # A long Bluesky post is a self-thread: the full body is every part the author chained.
    for _ in range(MAX_CHAIN):
        nxt = continuation(node, author)
        if nxt is None:
            break
        texts.append(str(dig(nxt, "post", "record", "text") or ""))
        node = (await thread(client, nxt["post"]["uri"], depth=1))["thread"]
    return to_post(view, body="\n\n".join(texts))


async def read_comments(client: BlueskyClient, uri: str, limit: int, depth: int) -> CommentList:
    """The thread's replies depth-first, ``depth`` levels of them; ``more`` when the walk
    stopped at ``limit`` or a reply has replies below the depth read (getPostThread leaves
    out their ``replies``), where a new reply of ours may be."""
    data = await thread(client, uri, depth=depth)
    anchor = data["thread"]
    gate = data.get("threadgate") or dig(anchor, "post", "threadgate") or {}
    hidden = set(dig(gate, "record", "hiddenReplies") or [])
    if hidden:  # ours stays whole: else the read-back of a lost reply misses it, and resends
        ours = f"at://{(await client.me())[0]}/"
        hidden = {u for u in hidden if not u.startswith(ours)}
    author = dig(anchor, "post", "author", "did")
    chain = [anchor]
    while len(chain) <= MAX_CHAIN and (nxt := continuation(chain[-1], author)) is not None:
        chain.append(nxt)
    in_chain = {id(n) for n in chain}
    stack: list[tuple[dict[str, Any], str | None, int]] = []
    for part in reversed(chain):  # replies to any part of the post are top-level comments
        stack.extend(
            (r, None, 0) for r in reversed(part.get("replies") or []) if id(r) not in in_chain
        )
    out: list[Comment] = []
    cut = False
    while stack and len(out) < limit:
        node, parent, level = stack.pop()
        comment = to_comment(uri, node, parent, level, hidden)
        if comment is None:
            continue
        out.append(comment)
        children = node.get("replies")
        cut = cut or (children is None and bool(dig(node, "post", "replyCount")))
        stack.extend((c, comment.id, level + 1) for c in reversed(children or []))
    return CommentList(comments=out, more=cut or bool(stack))
