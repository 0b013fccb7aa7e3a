"""The Bluesky emulator assembled: its XRPC route table (method, NSID) and the dispatch.

Every call is ``/xrpc/{nsid}``: queries are GET, procedures POST. A known NSID called with
the other method is the PDS's ``400 InvalidRequest``; an unknown one ``501
MethodNotImplemented``. Every call is counted per NSID (``sandbox.debug.getCounts``).
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp

from gwanjong_sandbox.bluesky.inbox import list_notifications
from gwanjong_sandbox.bluesky.model import JSON
from gwanjong_sandbox.bluesky.profiles import BlueskyProfiles
from gwanjong_sandbox.bluesky.reads import BlueskyReads
from gwanjong_sandbox.bluesky.sessions import BlueskySessions
from gwanjong_sandbox.bluesky.writes import BlueskyWrites
from gwanjong_sandbox.routing import Endpoint

XRPC = "/xrpc/"


class BlueskyEmulator(BlueskySessions, BlueskyReads, BlueskyProfiles, BlueskyWrites):
    def route_table(self) -> tuple[Endpoint, ...]:
        """(method, NSID) -> handler(request)."""
        table = (
            ("GET", "app.bsky.actor.getProfile", self.get_profile),
            ("GET", "com.atproto.identity.resolveHandle", self.resolve_handle),
            ("GET", "app.bsky.feed.getFeed", self.get_feed),
            ("GET", "app.bsky.feed.searchPosts", self.search_posts),
            ("GET", "app.bsky.feed.getAuthorFeed", self.get_author_feed),
            ("GET", "app.bsky.feed.getPostThread", self.get_post_thread),
            ("GET", "app.bsky.feed.getPosts", self.get_posts),
            ("GET", "com.atproto.server.getSession", self.get_session),
            ("GET", "com.atproto.repo.getRecord", self.get_record),
            ("GET", "com.atproto.repo.listRecords", self.list_records),
            ("GET", "sandbox.debug.getCounts", self.debug_counts),
            ("GET", "app.bsky.notification.listNotifications", self.list_notifications),
            ("POST", "com.atproto.server.createSession", self.create_session),
            ("POST", "com.atproto.server.refreshSession", self.refresh_session),
            ("POST", "com.atproto.repo.createRecord", self.create_record),
            ("POST", "com.atproto.repo.putRecord", self.put_record),
            ("POST", "sandbox.debug.configure", self.debug_configure),
            ("POST", "sandbox.debug.revokeSessions", self.debug_revoke),
        )
        return tuple(Endpoint(m, nsid, handler, XRPC + nsid) for m, nsid, handler in table)

    def resolve(self, method: str, path: str) -> Endpoint | None:
        nsid = path.removeprefix(XRPC)
        # Anything but GET is a procedure call, as on the PDS.
        method = "GET" if method == "GET" else "POST"
        for endpoint in self.route_table():
            if endpoint.key == (method, nsid):
                return endpoint
        return None

    def app(self) -> ASGIApp:
        return Starlette(routes=[Route(XRPC + "{nsid}", self.dispatch, methods=["GET", "POST"])])

    async def dispatch(self, request: Request) -> Response:
        nsid = request.path_params["nsid"]
        self.counts[nsid] = self.counts.get(nsid, 0) + 1
        endpoint = self.resolve(request.method, XRPC + nsid)
        if endpoint is not None:
            return await endpoint.handler(request)
        other = next((e for e in self.route_table() if e.path == nsid), None)
        if other is not None:
            return self._error(
                400,
                "InvalidRequest",
                f"Incorrect HTTP method ({request.method}) expected {other.method}",
            )
        return self._error(501, "MethodNotImplemented", "Method Not Implemented")

    async def list_notifications(self, request: Request) -> Response:
        return await list_notifications(self, request)

    # debug routes for tests (under the prefix, so they count as this platform's requests)

    async def debug_counts(self, _request: Request) -> Response:
        return JSON({"counts": dict(self.counts)})

    async def debug_configure(self, request: Request) -> Response:
        body = await self._json_body(request)
        if isinstance(body, Response):
            return body
        if "accessTtlS" in body:
            self.access_ttl_s = int(body["accessTtlS"])
        return JSON({"ok": True, "accessTtlS": self.access_ttl_s})

    async def debug_revoke(self, _request: Request) -> Response:
        revoked = len(self.sessions)
        self.sessions.clear()
        self.refresh_tokens.clear()
        return JSON({"ok": True, "revoked": revoked})
