"""A console over a gateway with the fake forum (fast tier) or the real servers and the
sandbox (browser tier): sign in, make a pending approval or a hand-off."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from fastmcp import Client, FastMCP
from fastmcp.client.elicitation import ElicitResult

from gwanjong_gateway.console.app import Console
from gwanjong_gateway.console.routes import build_app
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import Approval
from tests.fakes.platform import FakePlatform
from tests.gateway.approval_clients import url_only
from tests.gateway.helpers import drafted, gateway_of
from tests.mcp import call

PORT = 8123
BASE = f"http://127.0.0.1:{PORT}"
ORIGIN = {"origin": BASE}


@dataclass
class Served:
    gw: Gateway
    console: Console
    client: Client[Any]  # the MCP client (the model's side)
    http: httpx.AsyncClient  # the person's browser, as plain HTTP


@asynccontextmanager
async def serving(
    gw: Gateway,
    mcp: FastMCP[Any],
    clock: Callable[[], float] | None = None,
    base: str = BASE,
    links: list[str] | None = None,
) -> AsyncIterator[Served]:
    """The MCP client open (the gateway's lifespan runs) and the console app in-process, its
    browser at ``base`` (a proxy's public origin, or the console's own address). Given
    ``links``, the client declares URL-mode elicitation only and the console takes the
    approval links: each link the client is sent is added there."""
    console = Console(gw, port=PORT) if clock is None else Console(gw, port=PORT, clock=clock)
    transport = httpx.ASGITransport(app=build_app(console))
    client = Client(mcp)
    if links is not None:
        console.take_approval_links()  # after the gateway's own page link, which it replaces

        async def person(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
            assert response_type is None  # a link, never a form
            links.append(params.url)
            return ElicitResult(action="accept")

        client = url_only(Client(mcp, mode="legacy", elicitation_handler=person))
    async with client, httpx.AsyncClient(transport=transport, base_url=base) as http:
        yield Served(gw, console, client, http)


async def sign_in(s: Served) -> str:
    """Sign in with a fresh one-time link; the session's CSRF token."""
    link = s.console.signin_link()
    answer = await s.http.get(link.removeprefix(BASE))
    assert answer.status_code == 303, answer.text
    page = await s.http.get("/approvals")
    assert page.status_code == 200
    return csrf_of(page.text)


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "no CSRF field on the page"
    return found.group(1)


async def strike(
    client: Client[Any], platform: str, title_part: str, action: str, content: str, topic: str
) -> dict[str, Any]:
    oid = await drafted(client, topic, title_part, platform, limit=8)
    args = {"action": action, "content": content, "title": "A title"}
    return await call(client, "strike", opportunity_id=oid, **args)


async def approval(gw: Gateway, approval_id: int) -> Approval:
    found = await gw.records.run(StrikeStore.approval, approval_id)
    assert found is not None
    return found


TOPIC = "rust async cancellation"


def gateway(
    tmp_path: Path, forum: FakePlatform, tables: dict[str, dict[str, object]] | None = None
) -> tuple[Gateway, FastMCP[Any]]:
    return gateway_of(tmp_path, forum, writes="confirm", tables=tables)


async def pending(s: Served) -> int:
    answer = await strike(
        s.client, "devto", "Rust async", "post", "Guards around every await.", TOPIC
    )
    assert answer["status"] == "pending_approval", answer
    return int(answer["approval"]["id"])


async def post(s: Served, path: str, csrf: str, **form: str) -> httpx.Response:
    """A form the person's browser sends: from the console's origin, with its CSRF token."""
    return await s.http.post(path, data={"csrf": csrf, **form}, headers=ORIGIN)
