"""Every sandbox emulator routes by an explicit table: no (method, path) listed twice, and
every row reachable (its example request resolves to that row, not to an earlier one)."""

from __future__ import annotations

import inspect

import pytest
from starlette.responses import Response

from gwanjong_sandbox.emulator import Emulator, make_emulators
from gwanjong_sandbox.routing import (
    ANY,
    Endpoint,
    duplicate_keys,
    starlette_resolve,
)
from gwanjong_sandbox.state import SandboxState

EMULATORS = make_emulators(SandboxState())


@pytest.fixture(params=EMULATORS, ids=[e.platform for e in EMULATORS])
def emulator(request: pytest.FixtureRequest) -> Emulator:
    return request.param


def test_every_emulator_is_covered() -> None:
    assert {e.platform for e in EMULATORS} == {
        "devto",
        "bluesky",
        "reddit",
        "twitter",
        "twikit",
        "hackernews",
        "mastodon",
    }


def test_the_longest_path_prefix_picks_the_emulator() -> None:
    # Forem, Algolia and Mastodon all live under /api/: the most specific prefix wins.
    from gwanjong_sandbox.app import SandboxApp

    app = SandboxApp()

    def owner(path: str) -> str | None:
        found = app.route({"type": "http", "path": path, "headers": []})
        return found.platform if found is not None else None

    assert owner("/api/articles/search") == "devto"
    assert owner("/api/v1/search") == "hackernews"
    assert owner("/api/v1/statuses/1/context") == "mastodon"
    assert owner("/api/v1/notifications") == "mastodon"
    assert owner("/api/v2/search") == "mastodon"


def test_no_route_is_listed_twice(emulator: Emulator) -> None:
    table = emulator.route_table()
    assert table, f"{emulator.platform} has no routes"
    assert duplicate_keys(table) == []


def test_every_route_is_reachable(emulator: Emulator) -> None:
    for endpoint in emulator.route_table():
        method = "GET" if endpoint.method == ANY else endpoint.method
        reached = emulator.resolve(method, endpoint.example)
        assert reached == endpoint, f"{method} {endpoint.example} reaches {reached}"


def test_handlers_are_the_emulators_own_coroutines(emulator: Emulator) -> None:
    for endpoint in emulator.route_table():
        assert getattr(endpoint.handler, "__self__", None) is emulator, endpoint
        assert inspect.iscoroutinefunction(endpoint.handler), endpoint


def test_unknown_paths_reach_no_handler_but_the_catch_all() -> None:
    by_name = {e.platform: e for e in EMULATORS}
    assert by_name["devto"].resolve("GET", "/api/nothing/here/at/all") is None
    assert by_name["bluesky"].resolve("GET", "/xrpc/app.bsky.nothing") is None
    assert by_name["reddit"].resolve("GET", "/reddit/api/nothing") is None
    assert by_name["twikit"].resolve("GET", "/i/api/graphql/Q/Nothing") is None
    # Unknown v2 paths get X's own 404 problem from the table's last row.
    unknown = by_name["twitter"].resolve("GET", "/2/spaces/search")
    assert unknown is not None and unknown.path == "/2/{rest:path}"


async def _handler() -> Response:
    return Response()


async def _other() -> Response:
    return Response()


def test_the_checks_catch_duplicates_and_shadowed_rows() -> None:
    # The helpers the tests above rely on must be able to fail.
    twice = (
        Endpoint("GET", "/a", _handler, "/a"),
        Endpoint("GET", "/a", _other, "/a"),
        Endpoint("POST", "/a", _other, "/a"),
    )
    assert duplicate_keys(twice) == [("GET", "/a")]
    shadowed = (
        Endpoint("GET", "/a/{name}", _handler, "/a/x"),
        Endpoint("GET", "/a/b", _other, "/a/b"),
    )
    assert starlette_resolve(shadowed, "GET", "/a/b") == shadowed[0]
    assert starlette_resolve(shadowed, "POST", "/a/b") is None
