"""Reading Reddit: hot posts, search, one post, and its comments."""

from __future__ import annotations

import asyncpraw
from asyncpraw.models import Submission

from gwanjong_reddit.client import RedditClient
from gwanjong_reddit.comments import flatten
from gwanjong_reddit.posts import submission_id, to_post
from gwanjong_shared.contract import CommentList, errors
from gwanjong_shared.contract.models import Post
from gwanjong_shared.kit.once import each_once, holding

#: how many of our newest posts a search looks through for the query's words
OURS = 50


async def hot(client: RedditClient, limit: int) -> list[Post]:
    names = "+".join(client.settings.subreddits) or "popular"

    async def read(reddit: asyncpraw.Reddit) -> list[Post]:
        subreddit = await reddit.subreddit(names)
        found: list[Post] = []
        # Pinned mod posts top every hot list; they are not discussions, so skip them.
        async for submission in subreddit.hot(limit=min(100, limit + 2)):
            if vars(submission).get("stickied"):
                continue
            found.append(to_post(submission))
            if len(found) >= limit:
                break
        return found

    missing = f"subreddit r/{names} (REDDIT_SUBREDDITS)"
    return await client.run("reading hot posts", read, missing=missing)


async def search(client: RedditClient, query: str, limit: int) -> list[Post]:
    settings = client.settings
    # where write_post publishes is searched too: an unsure post is read back by search
    names = [*settings.subreddits, *filter(None, [settings.post_subreddit])]
    scope = "all" if settings.search_scope == "all" else "+".join(dict.fromkeys(names))

    async def find(reddit: asyncpraw.Reddit) -> list[Post]:
        subreddit = await reddit.subreddit(scope or "all")
        listing = subreddit.search(
            query, sort="relevance", time_filter=settings.search_time, limit=limit
        )
        return [to_post(s) async for s in listing][:limit]

    found = await _ours_with(client, query)
    found += await client.run("searching", find, missing=f"subreddit r/{scope}")
    return each_once(found, limit)


async def _ours_with(client: RedditClient, query: str) -> list[Post]:
    """Our latest posts holding every word of ``query``: an unsure post is read back by its
    title, and Reddit's search lists a new post only minutes later (never one its spam
    filter holds, which our profile still shows us), past the read-back's window."""
    if not client.settings.has_user:
        return []

    async def mine(reddit: asyncpraw.Reddit) -> list[Post]:
        me = await reddit.user.me()
        if me is None:
            return []
        return [to_post(s) async for s in me.submissions.new(limit=OURS)]

    return holding(query, await client.run("reading our posts", mine, missing="account"))


async def load(client: RedditClient, post_id: str, comment_limit: int) -> Submission:
    """The submission with up to ``comment_limit`` comments; a deleted one is not_found."""
    sid = submission_id(post_id)

    async def fetch(reddit: asyncpraw.Reddit) -> Submission:
        submission = await reddit.submission(sid, fetch=False)
        submission.comment_limit = comment_limit
        # Newest first: in "best" order a new 1-point comment sits past what a big thread's
        # bounded walk reads, so the read-back of a lost write missed it and it went again.
        submission.comment_sort = "new"
        await submission.load()
        return submission

    submission = await client.run(f"fetching post {sid}", fetch, missing=f"post {sid}")
    d = vars(submission)
    if d.get("removed_by_category") == "deleted" or (
        d.get("author") is None and d.get("selftext") == "[deleted]"
    ):
        raise errors.not_found(
            f"Reddit post {sid} was deleted by its author. Pick another post from search or "
            "trending."
        )
    return submission


async def post(client: RedditClient, post_id: str) -> Post:
    # One comment is enough: the post is what we want here.
    return to_post(await load(client, post_id, comment_limit=1))


async def comments(client: RedditClient, post_id: str, limit: int) -> CommentList:
    submission = await load(client, post_id, comment_limit=min(max(limit, 1), 500))

    async def walk(_reddit: asyncpraw.Reddit) -> CommentList:
        return await flatten(submission, limit, client.settings.more_requests)

    sid = str(vars(submission)["id"])
    return await client.run(f"loading more comments of post {sid}", walk, missing=f"post {sid}")
