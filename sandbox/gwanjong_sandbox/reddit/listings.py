"""Reddit listings: /r/a+b/{hot,new,top,rising}, search and /api/info, with ``after`` paging."""

from __future__ import annotations

import json
import math
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from gwanjong_sandbox.reddit.http import RedditHttp
from gwanjong_sandbox.reddit.model import (
    BOTTIQUETTE,
    SEARCH_INDEX_S,
    SUBREDDITS,
    VIRTUAL,
    RLink,
    subtree_size,
)


class RedditListings(RedditHttp):
    """Listing routes."""

    # -- listings ---------------------------------------------------------------------

    def _subreddit_links(self, sr: str | None) -> list[RLink] | None:
        """Links in ``a+b`` (None when no named subreddit exists: Reddit redirects)."""
        # the closed copies of a thread are read by id only: the corpus's listings stay as is
        links = [
            link
            for link in self.links.values()
            if self.state.visible("reddit", link.id) and not link.closed
        ]
        if sr is None or sr.lower() in VIRTUAL:
            return links
        known = {s.lower(): s for s in SUBREDDITS}
        wanted = {known[n.lower()] for n in sr.split("+") if n.lower() in known}
        if not wanted:
            return None
        return [link for link in links if link.sub in wanted]

    @staticmethod
    def _redirect(sr: str) -> Response:
        # What Reddit answers for a subreddit that does not exist (asyncpraw: Redirect).
        return Response(status_code=302, headers={"location": f"/subreddits/search.json?q={sr}"})

    def _hot(self, link: RLink) -> float:
        order = math.log10(max(abs(link.score), 1))
        sign = 1 if link.score > 0 else -1 if link.score < 0 else 0
        return round(sign * order + (link.created - 1134028003) / 45000, 7)

    def _window(self, t: str) -> float | None:
        seconds = {
            "hour": 3600,
            "day": 86400,
            "week": 7 * 86400,
            "month": 30 * 86400,
            "year": 365 * 86400,
        }.get(t)
        return None if seconds is None else self.now() - seconds

    def _page(
        self, request: Request, links: list[RLink], headers: dict[str, str], search: bool = False
    ) -> Response:
        q = request.query_params
        try:
            limit = max(1, min(100, int(q.get("limit", "25"))))
        except ValueError:
            limit = 25
        after = q.get("after")
        names = [f"t3_{link.id}" for link in links]
        start = names.index(after) + 1 if after in names else 0
        chunk = links[start : start + limit]
        more = start + limit < len(links)
        data: dict[str, Any] = {
            "after": f"t3_{chunk[-1].id}" if chunk and more else None,
            "dist": len(chunk),
            "modhash": None,
            "geo_filter": None,
            "children": [{"kind": "t3", "data": self._t3(link)} for link in chunk],
            "before": None,
        }
        if search:
            del data["geo_filter"]
            data["facets"] = {}
        return self._json({"kind": "Listing", "data": data}, headers)

    async def route_listing(
        self,
        request: Request,
        client: str,
        user: str | None,
        headers: dict[str, str],
        sr: str | None = None,
        sort: str | None = None,
    ) -> Response:
        links = self._subreddit_links(sr)
        if links is None:
            assert sr is not None
            return self._redirect(sr)
        since = (
            self._window(request.query_params.get("t", "day"))
            if sort in ("top", "controversial")
            else None
        )
        if since is not None:
            links = [link for link in links if link.created >= since]
        if sort == "new":
            links.sort(key=lambda link: -link.created)
        elif sort in ("top", "controversial"):
            links.sort(key=lambda link: -link.score)
        elif sort == "rising":
            links.sort(
                key=lambda link: -(link.score / max(1.0, (self.now() - link.created) / 3600))
            )
        else:
            links.sort(key=lambda link: -self._hot(link))
        return self._page(request, links, headers)

    async def route_search(
        self,
        request: Request,
        client: str,
        user: str | None,
        headers: dict[str, str],
        sr: str | None = None,
    ) -> Response:
        q = request.query_params
        restrict = q.get("restrict_sr", "false").lower() in ("true", "1", "on")
        links = self._subreddit_links(sr if restrict else None)
        if links is None:
            assert sr is not None
            return self._redirect(sr)
        indexed = self.state.now() - SEARCH_INDEX_S  # a post written here is indexed late
        links = [link for link in links if not link.mine or link.created <= indexed]
        terms = [
            t.lower()
            for t in q.get("q", "").replace('"', " ").split()
            if t.upper() not in ("AND", "OR")
        ]
        since = self._window(q.get("t", "all"))

        def score(link: RLink) -> int:
            title, body = link.title.lower(), link.selftext.lower()
            hits = [3 * title.count(t) + body.count(t) + (t == link.sub.lower()) for t in terms]
            return sum(hits) if hits and all(hits) else 0

        scored = [(score(link), link) for link in links if since is None or link.created >= since]
        found = [(s, link) for s, link in scored if s > 0]
        sort = q.get("sort", "relevance")
        if sort == "new":
            found.sort(key=lambda p: -p[1].created)
        elif sort == "top":
            found.sort(key=lambda p: -p[1].score)
        elif sort == "comments":
            found.sort(key=lambda p: -subtree_size(p[1].comments))
        elif sort == "hot":
            found.sort(key=lambda p: -self._hot(p[1]))
        else:
            found.sort(key=lambda p: (-p[0], -self._hot(p[1])))
        return self._page(request, [link for _, link in found], headers, search=True)

    async def route_submitted(
        self, request: Request, client: str, user: str | None, headers: dict[str, str], name: str
    ) -> Response:
        """``/user/{name}/submitted``: a user's posts, newest first, at once (no index)."""
        links = [
            link
            for link in self.links.values()
            if link.author.lower() == name.lower() and self.state.visible("reddit", link.id)
        ]
        links.sort(key=lambda link: -link.created)
        return self._page(request, links, headers)

    async def route_wiki(
        self,
        request: Request,
        client: str,
        user: str | None,
        headers: dict[str, str],
        sr: str,
        page: str,
    ) -> Response:
        """``/r/{sr}/wiki/{page}``: only r/Bottiquette's robots_txt_json, its lists as JSON
        text in ``content_md`` (a page as bots read it; every other page is Reddit's 404)."""
        if (sr.lower(), page.lower()) != ("bottiquette", "robots_txt_json"):
            return self._not_found(client)
        text = json.dumps(BOTTIQUETTE, indent=4)
        editor = {"kind": "t2", "data": {"name": "bottiquette_mod", "id": "5b0t7"}}
        data = {
            "content_md": text,
            "content_html": f'<div class="md"><pre><code>{text}</code></pre></div>',
            "may_revise": False,
            "reason": None,
            "revision_by": editor,
            "revision_date": 1_700_000_000,
            "revision_id": "2d6a5a8e-0b1c-11ee-9f1a-6e9d2a1c3b4f",
        }
        return self._json({"kind": "wikipage", "data": data}, headers)

    async def route_info(
        self, request: Request, client: str, user: str | None, headers: dict[str, str]
    ) -> Response:
        wanted = [n.strip() for n in request.query_params.get("id", "").split(",") if n.strip()]
        children: list[dict[str, Any]] = []
        for fullname in wanted[:100]:
            kind, _, thing = fullname.partition("_")
            if kind == "t3" and thing in self.links:
                children.append({"kind": "t3", "data": self._t3(self.links[thing])})
            elif kind == "t1" and thing in self.comments:
                c = self.comments[thing]
                if c.link_id in self.links:
                    children.append(
                        {"kind": "t1", "data": self._t1(c, self.links[c.link_id], None, "")}
                    )
        return self._json(
            {
                "kind": "Listing",
                "data": {
                    "after": None,
                    "dist": len(children),
                    "modhash": None,
                    "geo_filter": None,
                    "children": children,
                    "before": None,
                },
            },
            headers,
        )
