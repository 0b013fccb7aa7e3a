"""Reddit comment trees: /comments/{id} pages and /api/morechildren."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from gwanjong_sandbox.reddit.http import RedditHttp
from gwanjong_sandbox.reddit.model import (
    MORE_BATCH,
    PAGE_COMMENTS,
    RComment,
)


class RedditComments(RedditHttp):
    """Comment-tree routes."""

    async def route_comments(
        self,
        request: Request,
        client: str,
        user: str | None,
        headers: dict[str, str],
        id: str,
        slug: str | None = None,
        cid: str | None = None,
    ) -> Response:
        link = self.links.get(id)
        if link is None:
            return self._not_found(client)
        q = request.query_params
        sort = q.get("sort", "confidence")
        try:
            limit = int(q.get("limit", str(PAGE_COMMENTS)))
        except ValueError:
            limit = PAGE_COMMENTS
        budget = [max(1, min(limit, PAGE_COMMENTS))]
        if cid:
            # A comment's permalink ("continue this thread"): that comment as the only root.
            focus = self.comments.get(cid)
            if focus is None or focus.link_id != link.id:
                return self._not_found(client)
            budget[0] -= 1
            replies = self._tree(
                link,
                focus.children,
                f"t1_{focus.id}",
                focus.depth + 1,
                budget,
                sort,
                base_depth=focus.depth,
            )
            listing_children = [
                {
                    "kind": "t1",
                    "data": self._t1(
                        focus,
                        link,
                        0,
                        {
                            "kind": "Listing",
                            "data": {
                                "after": None,
                                "dist": None,
                                "modhash": None,
                                "children": replies,
                                "before": None,
                            },
                        }
                        if replies
                        else "",
                    ),
                }
            ]
        else:
            listing_children = self._tree(link, link.comments, f"t3_{link.id}", 0, budget, sort)
        return self._json(
            [
                {
                    "kind": "Listing",
                    "data": {
                        "after": None,
                        "dist": 1,
                        "modhash": None,
                        "children": [{"kind": "t3", "data": self._t3(link)}],
                        "before": None,
                    },
                },
                {
                    "kind": "Listing",
                    "data": {
                        "after": None,
                        "dist": None,
                        "modhash": None,
                        "children": listing_children,
                        "before": None,
                    },
                },
            ],
            headers,
        )

    async def route_morechildren(
        self, request: Request, client: str, user: str | None, headers: dict[str, str]
    ) -> Response:
        args = {**dict(request.query_params), **(await self._form(request))}
        link = self.links.get(args.get("link_id", "").removeprefix("t3_"))
        if link is None:
            return self._json({"json": {"errors": [], "data": {"things": []}}}, headers)
        sort = args.get("sort", "confidence")
        wanted = [
            self.comments[i]
            for i in args.get("children", "").split(",")
            if i in self.comments and self.comments[i].link_id == link.id
        ]
        things: list[dict[str, Any]] = []
        budget = [MORE_BATCH]
        # Requested ids keep their order; consecutive siblings are rendered together.
        groups: list[list[RComment]] = []
        for node in wanted:
            if groups and groups[-1][0].parent == node.parent:
                groups[-1].append(node)
            else:
                groups.append([node])
        for group in groups:
            self._flat(
                link, group, group[0].parent, group[0].depth, budget, sort, things, ordered=True
            )
        return self._json({"json": {"errors": [], "data": {"things": things}}}, headers)
