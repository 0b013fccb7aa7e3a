"""The Reddit emulator assembled: its route table and the dispatch that walks it.

Every path lives under ``/reddit/``; both trailing-slash forms and ``.json`` suffixes match
the same route, and the first matching row wins. Every route but the token endpoint needs a
bearer token and spends the client's budget; answers are HTML-escaped unless ``raw_json=1``.
"""

from __future__ import annotations

import re
from functools import cache

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from gwanjong_sandbox.reddit.comments import RedditComments
from gwanjong_sandbox.reddit.inbox import route_inbox
from gwanjong_sandbox.reddit.listings import RedditListings
from gwanjong_sandbox.reddit.model import PREFIX, Reject, legacy_escaped
from gwanjong_sandbox.reddit.oauth import RedditOAuth
from gwanjong_sandbox.reddit.writes import RedditWrites
from gwanjong_sandbox.routing import ANY, Endpoint

_COMMENTS = (
    r"^(?:r/[^/]+/)?comments/(?P<id>[0-9a-z]+)(?:/(?P<slug>[^/]*)(?:/(?P<cid>[0-9a-z]+))?)?$"
)
_LISTING = r"^(?:r/(?P<sr>[^/]+)/?)?(?P<sort>hot|new|top|rising|controversial)?$"
_WIKI = r"^r/(?P<sr>[^/]+)/wiki/(?P<page>[^/]+)$"
_INBOX = r"^message/(?P<box>inbox|unread|mentions|comments|selfreply)$"


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _local(path: str) -> str:
    """A request path as the table's patterns see it: no prefix, slashes or ``.json``."""
    return path.removeprefix(PREFIX + "/").strip("/").removesuffix(".json")


class RedditEmulator(RedditOAuth, RedditListings, RedditComments, RedditWrites):
    def route_table(self) -> tuple[Endpoint, ...]:
        """(method, path regex) -> handler, first match wins; handlers after ``token`` take
        (request, client, user, headers, **the pattern's groups)."""
        p = PREFIX
        return (
            Endpoint("POST", r"^api/v1/access_token$", self.token, f"{p}/api/v1/access_token"),
            Endpoint("GET", r"^api/v1/me$", self.route_me, f"{p}/api/v1/me"),
            Endpoint("GET", r"^api/info$", self.route_info, f"{p}/api/info"),
            Endpoint(ANY, r"^api/morechildren$", self.route_morechildren, f"{p}/api/morechildren"),
            Endpoint("POST", r"^api/submit$", self.route_submit, f"{p}/api/submit"),
            Endpoint("POST", r"^api/comment$", self.route_comment, f"{p}/api/comment"),
            Endpoint("POST", r"^api/vote$", self.route_vote, f"{p}/api/vote"),
            Endpoint("GET", _INBOX, self.route_inbox, f"{p}/message/unread"),
            Endpoint(
                "GET",
                r"^user/(?P<name>[^/]+)/submitted$",
                self.route_submitted,
                f"{p}/user/gwanjong_bot/submitted",
            ),
            Endpoint(
                "GET", r"^(?:r/(?P<sr>[^/]+)/)?search$", self.route_search, f"{p}/r/rust/search"
            ),
            Endpoint("GET", _WIKI, self.route_wiki, f"{p}/r/Bottiquette/wiki/robots_txt_json"),
            Endpoint("GET", _LISTING, self.route_listing, f"{p}/r/Python+rust/new.json"),
            Endpoint("GET", _COMMENTS, self.route_comments, f"{p}/comments/abc12/some_slug/"),
        )

    def resolve(self, method: str, path: str) -> Endpoint | None:
        return self._match(method, _local(path))[0]

    def _match(self, method: str, local: str) -> tuple[Endpoint | None, dict[str, str]]:
        for endpoint in self.route_table():
            match = _compiled(endpoint.path).match(local)
            if match is not None and endpoint.method in (ANY, method):
                return endpoint, match.groupdict()
        return None, {}

    def app(self) -> ASGIApp:
        return Starlette(
            routes=[
                Route(
                    PREFIX + "/{path:path}",
                    self.dispatch,
                    methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
                )
            ]
        )

    async def dispatch(self, request: Request) -> Response:
        path = request.path_params["path"].strip("/").removesuffix(".json")
        endpoint, groups = self._match(request.method, path)
        try:
            if endpoint is not None:
                if endpoint.handler == self.token:
                    return await self.token(request)
                client, user, headers = self._authorize(request)
                response = await endpoint.handler(request, client, user, headers, **groups)
                if request.query_params.get("raw_json") != "1":
                    response = legacy_escaped(response)
                return response
            if request.method in ("GET", "POST"):
                client, _, _ = self._authorize(request)
                return self._not_found(client)
        except Reject as reject:
            return reject.response
        return JSONResponse({"message": "Method Not Allowed", "error": 405}, status_code=405)

    async def route_inbox(
        self, request: Request, client: str, user: str | None, headers: dict[str, str], box: str
    ) -> Response:
        return await route_inbox(self, request, client, user, headers, box)
