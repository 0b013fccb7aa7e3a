"""Reddit writes: /api/submit, /api/comment, /api/vote, with the per-account RATELIMIT."""

from __future__ import annotations

import math
import time

from starlette.requests import Request
from starlette.responses import Response

from gwanjong_sandbox.reddit.http import RedditHttp
from gwanjong_sandbox.reddit.model import (
    COMMENT_MAX,
    SELFTEXT_MAX,
    SUBREDDITS,
    TITLE_MAX,
    WRITE_LIMIT,
    WRITE_WINDOW_S,
    WWW,
    RComment,
    RLink,
    b36,
)


class RedditWrites(RedditHttp):
    """Write routes; errors come back with HTTP 200 as Reddit's ``json.errors``."""

    # -- writes -----------------------------------------------------------------------

    def _throttled(self) -> list[str] | None:
        """Reddit's per-account action throttle: the RATELIMIT error, answered with HTTP 200."""
        now = time.time()
        self.write_times = [t for t in self.write_times if t > now - WRITE_WINDOW_S]
        if len(self.write_times) < WRITE_LIMIT:
            self.write_times.append(now)
            return None
        wait = self.write_times[0] + WRITE_WINDOW_S - now
        amount = (
            f"{math.ceil(wait / 60)} minutes"
            if wait >= 60
            else f"{max(1, math.ceil(wait))} seconds"
        )
        return [
            "RATELIMIT",
            "Looks like you've been doing that a lot. "
            f"Take a break for {amount} before trying again.",
            "ratelimit",
        ]

    async def route_submit(
        self, request: Request, client: str, user: str | None, headers: dict[str, str]
    ) -> Response:
        if user is None:
            return self._forbidden(client)
        form = await self._form(request)
        title, text, sr = form.get("title", ""), form.get("text", ""), form.get("sr", "")
        known = {s.lower(): s for s in SUBREDDITS}
        errors: list[list[str]] = []
        if sr.lower() not in known:
            errors.append(["SUBREDDIT_NOEXIST", "that subreddit doesn't exist", "sr"])
        if not title.strip():
            errors.append(["NO_TEXT", "we need something here", "title"])
        elif len(title) > TITLE_MAX:
            errors.append(["TOO_LONG", f"this is too long (max: {TITLE_MAX})", "title"])
        if form.get("kind", "self") == "self" and len(text) > SELFTEXT_MAX:
            errors.append(["TOO_LONG", f"this is too long (max: {SELFTEXT_MAX})", "text"])
        if not errors:
            limited = self._throttled()
            if limited:
                errors.append(limited)
        if errors:
            return self._api_errors(errors, headers)
        link_id = b36(self._next_link)
        self._next_link += 1
        link = RLink(
            id=link_id,
            sub=known[sr.lower()],
            title=title,
            selftext=text,
            author=user,
            score=1,
            created=self.state.now(),  # real time, as Reddit stamps it: see devto.py
            mine=True,
        )
        self.links[link_id] = link
        url = WWW + link.permalink
        self.state.record_write(
            "reddit",
            "write_post",
            None,
            title=title,
            body=text,
            subreddit=link.sub,
            kind=form.get("kind"),
            id=link_id,
            url=url,
            user_agent=request.headers.get("user-agent", ""),
        )
        return self._json(
            {
                "json": {
                    "errors": [],
                    "data": {"url": url, "drafts_count": 0, "id": link_id, "name": f"t3_{link_id}"},
                }
            },
            headers,
        )

    async def route_comment(
        self, request: Request, client: str, user: str | None, headers: dict[str, str]
    ) -> Response:
        if user is None:
            return self._forbidden(client)
        form = await self._form(request)
        thing, text = form.get("thing_id", ""), form.get("text", "")
        kind, _, thing_id = thing.partition("_")
        parent_comment: RComment | None = None
        if kind == "t1":
            parent_comment = self.comments.get(thing_id)
            if (
                parent_comment is None
                or parent_comment.deleted
                or parent_comment.link_id not in self.links
            ):
                return self._api_errors(
                    [["DELETED_COMMENT", "that comment has been deleted", "parent"]], headers
                )
            if parent_comment.locked:  # Reddit names a locked comment as it does a locked thread
                return self._api_errors(
                    [["THREAD_LOCKED", "Comments are locked.", "parent"]], headers
                )
            link = self.links[parent_comment.link_id]
        elif kind == "t3" and thing_id in self.links:
            link = self.links[thing_id]
        else:
            return self._api_errors(
                [["DELETED_LINK", "the link you are commenting on has been deleted", "parent"]],
                headers,
            )
        if link.closed == "locked":
            return self._api_errors([["THREAD_LOCKED", "Comments are locked.", "parent"]], headers)
        if link.closed == "archived":
            too_old = "that's a piece of history now; it's too late to reply to it"
            return self._api_errors([["TOO_OLD", too_old, "parent"]], headers)
        if not text.strip():
            return self._api_errors([["NO_TEXT", "we need something here", "text"]], headers)
        if len(text) > COMMENT_MAX:
            return self._api_errors(
                [["TOO_LONG", f"this is too long (max: {COMMENT_MAX})", "text"]], headers
            )
        limited = self._throttled()
        if limited:
            return self._api_errors([limited], headers)
        comment_id = b36(self._next_comment)
        self._next_comment += 1
        depth = parent_comment.depth + 1 if parent_comment else 0
        comment = RComment(
            id=comment_id,
            link_id=link.id,
            parent=thing,
            depth=depth,
            author=user,
            body=text,
            score=1,
            created=self.state.now(),  # real time, as Reddit stamps it: see devto.py
            mine=True,
        )
        (parent_comment.children if parent_comment else link.comments).append(comment)
        self.comments[comment_id] = comment
        self.state.record_write(
            "reddit",
            "write_comment",
            thing,
            body=text,
            id=comment_id,
            post_id=link.id,
            user_agent=request.headers.get("user-agent", ""),
        )
        return self._json(
            {
                "json": {
                    "errors": [],
                    "data": {"things": [{"kind": "t1", "data": self._t1(comment, link, None, "")}]},
                }
            },
            headers,
        )

    async def route_vote(
        self, request: Request, client: str, user: str | None, headers: dict[str, str]
    ) -> Response:
        # Reddit answers a vote with {}; the gwanjong server must never call this.
        if user is None:
            return self._forbidden(client)
        form = await self._form(request)
        self.state.record_write("reddit", "upvote", form.get("id"), dir=form.get("dir"))
        return self._json({}, headers)
