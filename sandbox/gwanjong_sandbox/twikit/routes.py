"""The X web emulator assembled: its route table (served by Starlette's router, any X host)."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

from gwanjong_sandbox.routing import Endpoint, starlette_resolve, starlette_routes
from gwanjong_sandbox.twikit.login import TwikitLogin
from gwanjong_sandbox.twikit.reads import TwikitReads
from gwanjong_sandbox.twikit.writes import TwikitWrites

_GQL = "/i/api/graphql/{qid}/"
_QID = "/i/api/graphql/Q1d/"


class TwikitEmulator(TwikitLogin, TwikitReads, TwikitWrites):
    def route_table(self) -> tuple[Endpoint, ...]:
        """(method, path) -> handler, first match wins."""
        ondemand = "/responsive-web/client-web/{name}"
        user_state = "/help-center/forms/api/prod/user_state.json"
        return (
            Endpoint("GET", "/", self.home, "/"),
            Endpoint("GET", ondemand, self.ondemand, "/responsive-web/client-web/ondemand.s.js"),
            Endpoint("GET", "/i/js_inst", self.js_inst, "/i/js_inst"),
            Endpoint(
                "POST", "/1.1/guest/activate.json", self.guest_activate, "/1.1/guest/activate.json"
            ),
            Endpoint("POST", "/1.1/onboarding/task.json", self.task, "/1.1/onboarding/task.json"),
            Endpoint(
                "POST",
                "/1.1/onboarding/sso_init.json",
                self.sso_init,
                "/1.1/onboarding/sso_init.json",
            ),
            Endpoint("GET", user_state, self.user_state, user_state),
            Endpoint("GET", _GQL + "SearchTimeline", self.search_timeline, _QID + "SearchTimeline"),
            Endpoint("GET", _GQL + "TweetDetail", self.tweet_detail, _QID + "TweetDetail"),
            Endpoint("POST", _GQL + "CreateTweet", self.create_tweet, _QID + "CreateTweet"),
            Endpoint("POST", _GQL + "FavoriteTweet", self.favorite, _QID + "FavoriteTweet"),
            Endpoint("GET", "/i/api/2/guide.json", self.guide, "/i/api/2/guide.json"),
        )

    def resolve(self, method: str, path: str) -> Endpoint | None:
        return starlette_resolve(self.route_table(), method, path)

    def app(self) -> ASGIApp:
        inner = Starlette(routes=starlette_routes(self.route_table()))

        async def by_host(scope: Scope, receive: Receive, send: Send) -> None:
            # Paths mean different things per host (x.com/ is the home page, api.x.com/1.1/...
            # the login flow); the routes above are all distinct, so one router serves them.
            await inner(scope, receive, send)

        return by_host
