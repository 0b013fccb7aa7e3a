"""Route tables: each emulator lists its endpoints as (method, path) -> handler in one place.

An emulator exposes ``route_table()`` (its endpoints, in match order) and ``resolve(method,
path)`` (the endpoint a request would reach, using the same matching its app uses), so a test
can check that no two endpoints share a (method, path) and that every one is reachable.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from starlette.routing import Match, Route

Handler = Callable[..., Awaitable[Any]]
ANY = "*"  # an endpoint that answers every method


@dataclass(frozen=True)
class Endpoint:
    method: str  # "GET", "POST" or ANY
    path: str  # the pattern, as the emulator matches it (Starlette path, regex or NSID)
    handler: Handler
    example: str  # a concrete request path that must reach this endpoint

    @property
    def key(self) -> tuple[str, str]:
        return self.method, self.path


def duplicate_keys(table: Iterable[Endpoint]) -> list[tuple[str, str]]:
    """The (method, path) pairs listed more than once."""
    seen: set[tuple[str, str]] = set()
    twice: list[tuple[str, str]] = []
    for endpoint in table:
        if endpoint.key in seen:
            twice.append(endpoint.key)
        seen.add(endpoint.key)
    return twice


def starlette_routes(table: Iterable[Endpoint]) -> list[Route]:
    return [
        Route(e.path, e.handler, methods=None if e.method == ANY else [e.method]) for e in table
    ]


def starlette_resolve(table: tuple[Endpoint, ...], method: str, path: str) -> Endpoint | None:
    """The endpoint Starlette's router picks for (method, path): the first full match."""
    scope = {"type": "http", "method": method, "path": path, "root_path": ""}
    for endpoint, route in zip(table, starlette_routes(table), strict=True):
        match, _ = route.matches(scope)
        if match == Match.FULL:
            return endpoint
    return None
