"""asyncpraw objects as Post/Comment, and the ids the tools take."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from asyncpraw.exceptions import InvalidURL
from asyncpraw.models import Comment as RedditComment
from asyncpraw.models import Redditor, Submission, Subreddit
from asyncpraw.models.base import AsyncPRAWBase
from asyncpraw.models.comment_forest import CommentForest

from gwanjong_shared.contract import errors
from gwanjong_shared.contract.models import Comment, Post

PLATFORM = "reddit"
WEB = "https://www.reddit.com"  # public links always point at the real site
_ID36 = re.compile(r"^[0-9a-z]{1,13}$")
_NOT_PAYLOAD = frozenset({"comments", "comment_limit", "comment_sort", "submission"})


def iso(epoch: Any) -> str | None:
    if epoch is None:
        return None
    try:
        moment = datetime.fromtimestamp(float(epoch), UTC)
    except (TypeError, ValueError, OverflowError):
        return None
    return moment.isoformat().replace("+00:00", "Z")


def items(forest: CommentForest | list[Any]) -> list[Any]:
    """The top level of a comment forest (it has no ``__iter__``, only indexing)."""
    if isinstance(forest, list):
        return list(forest)
    return [forest[i] for i in range(len(forest))]


def raw(thing: object) -> dict[str, Any]:
    """The payload asyncpraw parsed, with its objects turned back into names."""
    out: dict[str, Any] = {}
    for key, value in vars(thing).items():
        if key.startswith("_") or key in _NOT_PAYLOAD:
            continue
        if isinstance(value, (Redditor, Subreddit)):
            value = str(value)
        elif isinstance(value, AsyncPRAWBase):
            continue
        out[key] = value
    return out


def subreddit_of(submission: Submission) -> str:
    """The name of the subreddit a post is in ("" if Reddit did not say)."""
    return str(vars(submission).get("subreddit") or "")


def to_post(submission: Submission) -> Post:
    d = raw(submission)
    flair = d.get("link_flair_text")
    body = d.get("selftext") or ""
    if not body and not d.get("is_self", True):
        body = str(d.get("url") or "")
    return Post(
        id=str(d["id"]),
        platform=PLATFORM,
        title=str(d.get("title") or ""),
        url=WEB + str(d.get("permalink") or f"/comments/{d['id']}/"),
        body=body,
        author=str(d.get("author") or ""),  # None when the account was deleted
        tags=[subreddit_of(submission)] + ([str(flair)] if flair else []),
        likes=int(d.get("score") or 0),
        comments_count=int(d.get("num_comments") or 0),
        published_at=iso(d.get("created_utc")),
        raw=d,
    )


def to_comment(item: RedditComment, post_id: str, parent: str | None, depth: int) -> Comment:
    d = raw(item)
    return Comment(
        id=str(d["id"]),
        platform=PLATFORM,
        post_id=post_id,
        parent_id=parent,
        author=str(d.get("author") or ""),  # deleted/removed: no author, place kept
        body=str(d.get("body") or ""),
        likes=int(d.get("score") or 0),
        published_at=iso(d.get("created_utc")),
        depth=depth,
        url=WEB + str(d["permalink"]) if d.get("permalink") else "",
        raw=d,
    )


def submission_id(post_id: str) -> str:
    value = post_id.strip()
    if "/" in value:
        host = (urlsplit(value).hostname or "").lower()
        reddit_host = host in ("reddit.com", "redd.it") or host.endswith(".reddit.com")
        try:
            value = Submission.id_from_url(value) if reddit_host else "?"
        except InvalidURL:
            value = "?"
    value = value.lower().removeprefix("t3_")
    if not _ID36.match(value):
        raise errors.invalid_input(
            "Reddit post ids are base-36 like '1abc2de' (also 't3_1abc2de' or the post's "
            f"URL); got {post_id[:60]!r}. Use an id from search or trending."
        )
    return value


def comment_id(value_in: str) -> str:
    value = value_in.strip().lower().removeprefix("t1_")
    if not _ID36.match(value):
        raise errors.invalid_input(
            "parent_id must be a Reddit comment id like 'o5abc12' (or 't1_o5abc12'); got "
            f"{value_in[:60]!r}. Use an id from get_comments."
        )
    return value
