"""A link sent to a URL-mode client opens that one approval, once, for 15 minutes, and
never the operator's console: not another approval (the link minted for one approval
once declined another), not the lists, the history or Resume; not twice; not after it
expires (on the injected clock); not once its approval is other than the one it was made
for. Fast tier: the fake forum, plain HTTP against the console app in-process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult

from gwanjong_gateway.console.app import Console
from gwanjong_gateway.console.guard import APPROVAL_LINK_S
from gwanjong_gateway.console.routes import build_app
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import ApprovalStatus
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.gateway.approval_clients import url_only
from tests.gateway.console.helpers import BASE, ORIGIN, PORT, Served, approval, csrf_of, strike
from tests.gateway.helpers import gateway_of

pytestmark = pytest.mark.anyio
TOPIC = "rust async cancellation"


class Person:
    """A URL-mode client's person: keeps each link the client was sent."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    async def __call__(self, message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        assert response_type is None  # a link, never a form
        self.urls.append(params.url.removeprefix(BASE))
        return ElicitResult(action="accept")


async def two_pending(s: Served) -> tuple[int, int]:
    first = await strike(s.client, "devto", "Rust async", "post", "First text.", TOPIC)
    second = await strike(s.client, "devto", "loom", "post", "Second text.", "tokio loom testing")
    assert first["status"] == second["status"] == "pending_approval", (first, second)
    return int(first["approval"]["id"]), int(second["approval"]["id"])


def setup(tmp_path: Path, forum: FakePlatform, clock: FakeClock) -> tuple[Gateway, Any, Console]:
    gw, mcp = gateway_of(tmp_path, forum, wall=clock.time, writes="confirm")
    console = Console(gw, port=PORT, clock=clock.time)
    console.take_approval_links()  # after the gateway's own page link, which it replaces
    return gw, mcp, console


async def test_an_approval_link_opens_its_approval_only(
    forum: FakePlatform, tmp_path: Path
) -> None:
    clock = FakeClock()
    gw, mcp, console = setup(tmp_path, forum, clock)
    person = Person()
    client = url_only(Client(mcp, mode="legacy", elicitation_handler=person))  # type: ignore[arg-type]
    transport = httpx.ASGITransport(app=build_app(console))
    async with client, httpx.AsyncClient(transport=transport, base_url=BASE) as http:
        s = Served(gw, console, client, http)
        one, two = await two_pending(s)
        _, link = person.urls
        landed = await http.get(link)
        assert landed.status_code == 303 and landed.headers["location"] == f"/approvals/{two}"
        cookie = landed.headers["set-cookie"]
        assert f"Max-Age={int(APPROVAL_LINK_S)}" in cookie, cookie  # not the 12 h session
        page = await http.get(f"/approvals/{two}")
        assert page.status_code == 200 and "Second text." in page.text
        assert 'href="/history"' not in page.text  # no way in shown either
        csrf = csrf_of(page.text)
        # Nothing else: another approval (seen or decided), the lists, history, Resume.
        for path in ("/approvals", f"/approvals/{one}", "/history", "/handoffs", "/usage"):
            shut = await http.get(path)
            assert shut.status_code == 403 and f"opens approval {two} only" in shut.text, path
        for path, form in (
            (f"/approvals/{one}", {"csrf": csrf, "decision": "decline"}),
            ("/usage/resume", {"csrf": csrf, "platform": "devto"}),
        ):
            assert (await http.post(path, data=form, headers=ORIGIN)).status_code == 403
        assert (await approval(gw, one)).status is ApprovalStatus.PENDING
        assert (await http.get(link)).status_code == 403  # once
        # Its own approval: decided here.
        done = await http.post(
            f"/approvals/{two}", data={"csrf": csrf, "decision": "approve"}, headers=ORIGIN
        )
        assert done.status_code == 200 and "posted" in done.text
        clock.advance(APPROVAL_LINK_S + 1)  # the session lasts no longer than the link
        assert (await http.get(f"/approvals/{two}")).status_code == 401
    [written] = forum.writes
    assert "Second text." in str(written)
    assert (await approval(gw, two)).status is ApprovalStatus.APPROVED


async def test_an_unopened_approval_link_expires_and_a_changed_approval_refuses_it(
    forum: FakePlatform, tmp_path: Path
) -> None:
    clock = FakeClock()
    gw, mcp, console = setup(tmp_path, forum, clock)
    transport = httpx.ASGITransport(app=build_app(console))
    async with Client(mcp) as client, httpx.AsyncClient(transport=transport, base_url=BASE) as http:
        one, _ = await two_pending(Served(gw, console, client, http))
        found = await gw.records.run(StrikeStore.approval, one)
        assert found is not None
        late = console.sessions.approval_link(one, found.digest)
        clock.advance(APPROVAL_LINK_S + 1)
        assert (await http.get(f"/signin/{late}")).status_code == 403
        other = console.sessions.approval_link(one, "0" * 64)  # made for other contents
        assert (await http.get(f"/signin/{other}")).status_code == 303
        shut = await http.get(f"/approvals/{one}")
        assert shut.status_code == 403 and "not the one this link was made for" in shut.text
    assert (await approval(gw, one)).status is ApprovalStatus.PENDING
    assert forum.writes == []
