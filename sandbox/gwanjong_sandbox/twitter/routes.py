"""The X API v2 emulator assembled: its route table (served by Starlette's router)."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp

from gwanjong_sandbox.routing import ANY, Endpoint, starlette_resolve, starlette_routes
from gwanjong_sandbox.twitter.http import problem
from gwanjong_sandbox.twitter.mentions import user_mentions
from gwanjong_sandbox.twitter.reads import TwitterReads
from gwanjong_sandbox.twitter.writes import TwitterWrites


class TwitterEmulator(TwitterReads, TwitterWrites):
    def route_table(self) -> tuple[Endpoint, ...]:
        """(method, path) -> handler, first match wins; unknown v2 paths get X's 404 problem."""
        return (
            Endpoint("GET", "/2/tweets/search/recent", self.search, "/2/tweets/search/recent"),
            Endpoint("GET", "/2/tweets/{id}", self.get_tweet, "/2/tweets/20"),
            Endpoint("GET", "/2/tweets", self.get_tweets, "/2/tweets"),
            Endpoint("POST", "/2/tweets", self.create_tweet, "/2/tweets"),
            Endpoint("GET", "/2/users/me", self.me, "/2/users/me"),
            Endpoint("POST", "/2/users/{id}/likes", self.like, "/2/users/20/likes"),
            Endpoint("GET", "/2/users/{id}/mentions", self.user_mentions, "/2/users/20/mentions"),
            Endpoint("GET", "/2/trends/by/woeid/{woeid}", self.trends, "/2/trends/by/woeid/1"),
            Endpoint(ANY, "/2/{rest:path}", self.unknown, "/2/spaces/search"),
        )

    def resolve(self, method: str, path: str) -> Endpoint | None:
        return starlette_resolve(self.route_table(), method, path)

    def app(self) -> ASGIApp:
        return Starlette(routes=starlette_routes(self.route_table()))

    async def user_mentions(self, request: Request) -> Response:
        return await user_mentions(self, request)

    async def unknown(self, request: Request) -> Response:
        return problem(
            404,
            "Not Found Error",
            f"No route for {request.url.path}",
            "https://api.twitter.com/2/problems/resource-not-found",
        )
