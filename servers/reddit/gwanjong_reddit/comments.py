"""A Reddit comment tree flattened depth-first, loading "more" stubs on the way."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from asyncpraw.models import Comment as RedditComment
from asyncpraw.models import MoreComments, Submission

from gwanjong_reddit.posts import items, to_comment
from gwanjong_shared.contract import CommentList
from gwanjong_shared.contract.models import Comment


async def flatten(submission: Submission, limit: int, more_requests: int) -> CommentList:
    """Depth-first, parents before replies; "more" stubs are loaded where the walk meets
    them (``/api/morechildren``, or the thread's permalink for "continue this thread")
    while ``limit`` is not reached and ``more_requests`` (REDDIT_MORE_REQUESTS) allows.
    ``more``: the walk stopped at the limit or passed a stub it could not load, so a
    comment missing from it (a new reply under a far comment) may still be there."""
    post_id = str(vars(submission)["id"])
    root = f"t3_{post_id}"
    children: dict[str, list[Any]] = {}
    seen: set[str] = set()

    def adopt(found: Iterable[Any]) -> list[Any]:
        kept: list[Any] = []
        for item in found:
            if isinstance(item, RedditComment):
                name = f"t1_{vars(item)['id']}"
                if name in seen:
                    continue
                seen.add(name)
                children.setdefault(name, []).extend(adopt(items(item.replies)))
            kept.append(item)
        return kept

    async def expand(more: MoreComments) -> list[Any]:
        parent = str(vars(more).get("parent_id") or root)
        more.submission = submission
        direct: list[Any] = []
        for item in items(await more.comments(update=False)):
            owner = str(vars(item).get("parent_id") or parent)
            target = direct if owner == parent else children.setdefault(owner, [])
            target.extend(adopt([item]))
        return direct

    top = adopt(items(submission.comments))
    budget, skipped = more_requests, False
    out: list[Comment] = []
    stack: list[tuple[Any, str | None, int]] = [(item, None, 0) for item in reversed(top)]
    while stack and len(out) < limit:
        item, parent, depth = stack.pop()
        if isinstance(item, MoreComments):
            if budget > 0:
                budget -= 1
                stack.extend((x, parent, depth) for x in reversed(await expand(item)))
            else:
                skipped = True
            continue
        if not isinstance(item, RedditComment):
            continue
        comment = to_comment(item, post_id, parent, depth)
        out.append(comment)
        replies = children.get(f"t1_{comment.id}", [])
        stack.extend((x, comment.id, depth + 1) for x in reversed(replies))
    return CommentList(comments=out, more=skipped or bool(stack))
