"""Hacker News emulator: the official Firebase API (``/v0/…``) and the Algolia HN Search
API (``/api/v1/…``) over the seeded corpus, read-only like the real ones.

Both APIs are public: no key, no write route. Firebase answers ``200 null`` for an item or
user that does not exist (not a 404), and its lists and items are plain JSON.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp

from gwanjong_sandbox.hackernews import algolia
from gwanjong_sandbox.hackernews.world import ME, MISSING, World, build_world, front_page, user
from gwanjong_sandbox.routing import Endpoint, starlette_resolve, starlette_routes
from gwanjong_sandbox.state import SandboxState

__all__ = ["HackernewsEmulator"]


class HackernewsEmulator:
    platform: str = "hackernews"
    prefixes: tuple[str, ...] = ("/v0/", "/api/v1/")
    hosts: tuple[str, ...] = ()

    def __init__(self, state: SandboxState) -> None:
        self.state = state
        self.reset()

    def reset(self) -> None:
        self.world: World = build_world()

    def demo_env(self, base_url: str) -> dict[str, str]:
        return {
            "HACKERNEWS_API_URL": base_url,
            "HACKERNEWS_SEARCH_URL": base_url,
            "HACKERNEWS_USERNAME": ME,
        }

    def ids(self) -> dict[str, str]:
        ids = {key: str(value) for key, value in self.world.by_key.items()}
        ids["missing"] = str(MISSING)
        return ids

    def error_response(self, status: int, retry_after: int | None) -> Response:
        # Firebase's REST errors: {"error": "..."}; Algolia's carry "message" and "status".
        messages = {
            401: "Permission denied",
            403: "Permission denied",
            404: "Not found",
            429: "Too many requests",
        }
        message = messages.get(status, "Internal server error")
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        return JSONResponse(
            {"error": message, "message": message, "status": status},
            status_code=status,
            headers=headers,
        )

    # -- routes -----------------------------------------------------------------------

    def route_table(self) -> tuple[Endpoint, ...]:
        return (
            Endpoint("GET", "/v0/item/{id:int}.json", self.item, "/v0/item/8863.json"),
            Endpoint("GET", "/v0/user/{name:str}.json", self.user, "/v0/user/jl.json"),
            Endpoint("GET", "/v0/topstories.json", self.topstories, "/v0/topstories.json"),
            Endpoint("GET", "/api/v1/search", self.search, "/api/v1/search"),
            Endpoint(
                "GET", "/api/v1/search_by_date", self.search_by_date, "/api/v1/search_by_date"
            ),
        )

    def resolve(self, method: str, path: str) -> Endpoint | None:
        return starlette_resolve(self.route_table(), method, path)

    def app(self) -> ASGIApp:
        return Starlette(routes=starlette_routes(self.route_table()))

    async def item(self, request: Request) -> Response:
        return JSONResponse(self.world.items.get(request.path_params["id"]))  # null if none

    async def user(self, request: Request) -> Response:
        return JSONResponse(user(self.world, request.path_params["name"]))

    async def topstories(self, _: Request) -> Response:
        return JSONResponse(front_page(self.world))

    async def search(self, request: Request) -> Response:
        return self._search(request, by_date=False)

    async def search_by_date(self, request: Request) -> Response:
        return self._search(request, by_date=True)

    def _search(self, request: Request, *, by_date: bool) -> Response:
        q = request.query_params
        try:
            page = max(0, int(q.get("page", 0)))
            per_page = min(1000, max(0, int(q.get("hitsPerPage", 20))))
        except ValueError:
            return JSONResponse(
                {"message": "Invalid value for hitsPerPage or page", "status": 400},
                status_code=400,
            )
        status, body = algolia.search(
            self.world,
            q.get("query", ""),
            q.get("tags", ""),
            page,
            per_page,
            by_date,
            f"{request.url.query}&advancedSyntax=true&analyticsTags=backend",
        )
        return JSONResponse(body, status_code=status)
