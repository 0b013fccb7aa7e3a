"""Bluesky reads: profiles, handles, feeds, search, threads, posts."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from gwanjong_sandbox.bluesky.http import BlueskyHttp
from gwanjong_sandbox.bluesky.model import (
    WHATS_HOT,
    StoredPost,
)


class BlueskyReads(BlueskyHttp):
    """Read routes."""

    # reads (the PDS proxies these to the AppView for a signed-in account)

    async def get_profile(self, request: Request) -> Response:
        viewer = self._viewer(request)
        if isinstance(viewer, Response):
            return viewer
        account = self._resolve(request.query_params.get("actor", ""))
        if account is None:
            return self._error(400, "InvalidRequest", "Profile not found")
        posts = sum(1 for p in self.posts.values() if p.author == account.did)
        return self._ok(
            {
                **self._profile_basic(account.did, viewer),
                "description": "",
                "indexedAt": account.created_at,
                "followersCount": 3,
                "followsCount": len(account.follows),
                "postsCount": posts,
                "associated": {"lists": 0, "feedgens": 0, "starterPacks": 0, "labeler": False},
            }
        )

    async def resolve_handle(self, request: Request) -> Response:
        account = self._resolve(request.query_params.get("handle", ""))
        if account is None or account.handle.startswith("did:"):
            return self._error(400, "InvalidRequest", "Unable to resolve handle")
        return self._ok({"did": account.did})

    def _visible_roots(self) -> list[StoredPost]:
        return [p for p in self.posts.values() if p.root is None and p.gone is None]

    async def get_feed(self, request: Request) -> Response:
        viewer = self._viewer(request)
        if isinstance(viewer, Response):
            return viewer
        if request.query_params.get("feed") != WHATS_HOT:
            return self._error(400, "UnknownFeed", "Unknown feed")
        ranked = sorted(self._visible_roots(), key=lambda p: (-p.likes, p.uri))
        return self._feed_page(request, ranked, viewer)

    def _feed_page(self, request: Request, posts: list[StoredPost], viewer: str) -> Response:
        """One page of a feed: ``limit`` (1-100, 50) from the ``cursor`` (an offset here)."""
        limit = self._int(request, "limit", 50, 1, 100)
        offset = self._int(request, "cursor", 0, 0, 10_000)
        if limit is None or offset is None:
            return self._error(400, "InvalidRequest", "Invalid limit or cursor")
        page = posts[offset : offset + limit]
        body: dict[str, Any] = {"feed": [{"post": self._post_view(p, viewer)} for p in page]}
        if offset + limit < len(posts):
            body["cursor"] = str(offset + limit)
        return self._ok(body)

    async def get_author_feed(self, request: Request) -> Response:
        """An account's posts and replies, newest first (the AppView's: as late as search)."""
        viewer = self._viewer(request)
        if isinstance(viewer, Response):
            return viewer
        account = self._resolve(request.query_params.get("actor", ""))
        if account is None:
            return self._error(400, "InvalidRequest", "Profile not found")
        theirs = [
            p
            for p in self.posts.values()
            if p.author == account.did and p.gone is None and self._indexed(p)
        ]
        theirs.sort(key=lambda p: p.record["createdAt"], reverse=True)
        return self._feed_page(request, theirs, viewer)

    async def search_posts(self, request: Request) -> Response:
        viewer = self._viewer(request)
        if isinstance(viewer, Response):
            return viewer
        q = request.query_params.get("q", "")
        if not q.strip():
            return self._error(400, "InvalidRequest", 'Error: Params must have the property "q"')
        limit = self._int(request, "limit", 25, 1, 100)
        offset = self._int(request, "cursor", 0, 0, 10_000)
        if limit is None or offset is None:
            return self._error(400, "InvalidRequest", "Invalid limit or cursor")
        terms = [t.lower().lstrip("#") for t in q.split() if t.strip()]
        hits = [
            p
            for p in self.posts.values()
            if p.gone is None
            and self._indexed(p)
            and not p.violates_gate
            and all(t in p.record["text"].lower() or t in p.record.get("tags", []) for t in terms)
        ]
        if request.query_params.get("sort") == "latest":
            hits.sort(key=lambda p: p.record["createdAt"], reverse=True)
        else:
            hits.sort(key=lambda p: (-p.likes, p.record["createdAt"]))
        # The AppView takes a page of hits, then drops those of an author who blocks the
        # viewer (noBlocksOrTagged): a page shorter than limit, with a cursor all the same.
        page = [p for p in hits[offset : offset + limit] if not self._blocks(p.author, viewer)]
        body: dict[str, Any] = {"posts": [self._post_view(p, viewer) for p in page]}
        if offset + limit < len(hits):
            body["cursor"] = str(offset + limit)
        return self._ok(body)

    async def get_post_thread(self, request: Request) -> Response:
        viewer = self._viewer(request)
        if isinstance(viewer, Response):
            return viewer
        uri = request.query_params.get("uri", "")
        depth = self._int(request, "depth", 6, 0, 1000)
        height = self._int(request, "parentHeight", 80, 0, 1000)
        if not uri or depth is None or height is None:
            return self._error(400, "InvalidRequest", "Invalid uri, depth or parentHeight")
        post = self._find(uri)
        if post is None or post.gone == "notfound" or not self._indexed(post):
            return self._error(400, "NotFound", f"Post not found: {uri}")
        thread = self._node(post, viewer, depth)
        parent = self._parents(post, viewer, height)
        if parent is not None and thread["$type"].endswith("threadViewPost"):
            thread = {
                "$type": thread["$type"],
                "post": thread["post"],
                "parent": parent,
                **{k: v for k, v in thread.items() if k not in ("$type", "post")},
            }
        body: dict[str, Any] = {"thread": thread}
        gate = self._gate_view(post.root or post.uri)
        if gate is not None:
            body["threadgate"] = gate
        return self._ok(body)

    async def get_posts(self, request: Request) -> Response:
        viewer = self._viewer(request)
        if isinstance(viewer, Response):
            return viewer
        uris = request.query_params.getlist("uris")
        if not uris or len(uris) > 25:
            return self._error(400, "InvalidRequest", "uris must have between 1 and 25 items")
        found = [self._find(u) for u in uris]
        return self._ok(
            {
                "posts": [
                    self._post_view(p, viewer)
                    for p in found
                    if p is not None and p.gone is None and self._indexed(p)
                ]
            }
        )
