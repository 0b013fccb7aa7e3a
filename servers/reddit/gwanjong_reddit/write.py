"""Writing to Reddit: a self-post in REDDIT_POST_SUBREDDIT, or a reply to a post or comment."""

from __future__ import annotations

from typing import Any

import asyncpraw
from asyncpraw.exceptions import ClientException
from asyncpraw.models import Submission

from gwanjong_reddit import reads
from gwanjong_reddit.bottiquette import Bottiquette
from gwanjong_reddit.client import RedditClient
from gwanjong_reddit.posts import WEB, comment_id, submission_id, subreddit_of
from gwanjong_reddit.rules import COMMENT_RULE, rule_for_parent
from gwanjong_shared.contract import errors
from gwanjong_shared.contract.models import PostResult
from gwanjong_shared.kit.once import before_sending
from gwanjong_shared.kit.target_cache import TargetCache

PLATFORM = "reddit"


async def write_post(
    client: RedditClient, bottiquette: Bottiquette, title: str, body: str
) -> PostResult:
    client.require_account()
    name = client.settings.post_subreddit
    if not name:
        raise errors.invalid_input(
            "No subreddit to post in. Set REDDIT_POST_SUBREDDIT to one whose rules allow "
            "this kind of post, then restart the server."
        )
    async with before_sending("Reddit", "write_post", "r/Bottiquette's lists"):
        await bottiquette.require("write_post", name)  # validate's check, again

    async def submit(reddit: asyncpraw.Reddit) -> Submission:
        subreddit = await reddit.subreddit(name)
        # Reddit has no tags; flair is per subreddit, so tags are not sent.
        return await subreddit.submit(title, selftext=body)

    async with client.gate.limiter.paced(write=True):
        created = await client.run(
            f"publishing to r/{name}", submit, missing=f"subreddit r/{name} (REDDIT_POST_SUBREDDIT)"
        )
    sid = str(vars(created).get("id") or "")
    return PostResult(
        ok=True,
        platform=PLATFORM,
        action="write_post",
        id=sid or None,
        url=f"{WEB}/r/{name}/comments/{sid}/" if sid else None,
    )


async def write_comment(
    client: RedditClient,
    targets: TargetCache[Submission],
    bottiquette: Bottiquette,
    post_id: str,
    body: str,
    parent_id: str | None,
) -> PostResult:
    client.require_account()
    sid = submission_id(post_id)
    cid = comment_id(parent_id) if parent_id else None
    # validate's check, again (its read of the post is reused): no path sends around it
    async with before_sending("Reddit", "write_comment", "the post, r/Bottiquette's lists"):
        submission = await targets.fetch(sid, lambda: reads.load(client, sid, comment_limit=1))
        await bottiquette.require("write_comment", subreddit_of(submission))

    async def reply(reddit: asyncpraw.Reddit) -> Any:
        if cid is None:  # replying needs only the id: no read of the post
            submission = await reddit.submission(sid, fetch=False)
            return await submission.reply(body)
        try:
            parent = await reddit.comment(cid)  # /api/info: does it exist, and where?
        except ClientException:
            raise errors.not_found(
                f"Reddit has no comment {cid}. Use a comment id from get_comments."
            ) from None
        if vars(parent).get("link_id") != f"t3_{sid}":
            raise errors.not_found(
                f"Comment {cid} is not under post {sid}. Use a comment id from "
                f"get_comments(post_id={sid!r})."
            )
        rule = rule_for_parent(parent, COMMENT_RULE)
        if rule.allowed == "never":  # the thread's own lock is validate's (rule_for_thread)
            raise errors.not_supported(
                f"write_comment is not allowed for a program on Reddit: {rule.reason} "
                "Nothing was sent; pick another comment to reply to."
            )
        return await parent.reply(body)

    async with client.gate.limiter.paced(write=True):
        created = await client.run(f"replying to post {sid}", reply, missing=f"post {sid}")
    targets.forget(sid)
    d = vars(created) if created is not None else {}
    return PostResult(
        ok=True,
        platform=PLATFORM,
        action="write_comment",
        id=str(d["id"]) if d.get("id") else None,
        url=WEB + str(d["permalink"]) if d.get("permalink") else None,
    )
