"""A link sent to a URL-mode client opens that one approval, once, for 15 minutes, and
never the operator's console: not another approval (the link minted for one approval
once declined another), not the lists, the history or Resume; not twice; not after it
expires (on the injected clock); not once its approval is other than the one it was made
for. Fast tier: the fake forum, plain HTTP against the console app in-process."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gwanjong_gateway.console.guard import APPROVAL_LINK_S
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import ApprovalStatus
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.gateway.console.helpers import (
    BASE,
    ORIGIN,
    Served,
    approval,
    csrf_of,
    serving,
    strike,
)
from tests.gateway.helpers import gateway_of

pytestmark = pytest.mark.anyio
TOPIC = "rust async cancellation"


async def two_pending(s: Served) -> tuple[int, int]:
    first = await strike(s.client, "devto", "Rust async", "post", "First text.", TOPIC)
    second = await strike(s.client, "devto", "loom", "post", "Second text.", "tokio loom testing")
    assert first["status"] == second["status"] == "pending_approval", (first, second)
    return int(first["approval"]["id"]), int(second["approval"]["id"])


async def test_an_approval_link_opens_its_approval_only(
    forum: FakePlatform, tmp_path: Path, clock: FakeClock
) -> None:
    gw, mcp = gateway_of(tmp_path, forum, wall=clock.time, writes="confirm")
    links: list[str] = []
    async with serving(gw, mcp, clock.time, links=links) as s:
        http = s.http
        one, two = await two_pending(s)
        assert all(
            url.startswith(f"{BASE}/signin/") for url in links
        )  # the client's, not the model's
        _, link = [url.removeprefix(BASE) for url in links]
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
    assert (await approval(gw, two)).channel == "console"


async def test_an_unopened_approval_link_expires_and_a_changed_approval_refuses_it(
    forum: FakePlatform, tmp_path: Path, clock: FakeClock
) -> None:
    gw, mcp = gateway_of(tmp_path, forum, wall=clock.time, writes="confirm")
    async with serving(gw, mcp, clock.time) as s:
        console, http = s.console, s.http
        console.take_approval_links()
        one, _ = await two_pending(s)
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


async def test_an_approval_links_page_decides_through_its_own_forms(
    forum: FakePlatform, tmp_path: Path, clock: FakeClock
) -> None:
    """A browser sends the form to the action the page names, and follows its Edit link:
    both must be within the link's one approval (the page names /approvals/a7)."""
    gw, mcp = gateway_of(tmp_path, forum, wall=clock.time, writes="confirm")
    links: list[str] = []
    async with serving(gw, mcp, clock.time, links=links) as s:
        http = s.http
        one, two = await two_pending(s)
        landed = await http.get(links[-1].removeprefix(BASE))
        page = await http.get(landed.headers["location"])
        assert page.status_code == 200, page.text
        assert (await http.get(f"/approvals/a{one}")).status_code == 403  # still its own only
        edit = re.search(r'<a class="button" href="([^"]+)">Edit</a>', page.text)
        assert edit is not None, page.text
        assert (await http.get(edit.group(1).replace("&amp;", "&"))).status_code == 200
        actions = set(re.findall(r'<form method="post" action="([^"]+)"', page.text))
        assert actions, page.text
        action = actions.pop()
        done = await http.post(
            action, data={"csrf": csrf_of(page.text), "decision": "approve"}, headers=ORIGIN
        )
        assert done.status_code == 200 and "posted" in done.text, done.text
    [written] = forum.writes
    assert "Second text." in str(written)
    assert (await approval(gw, two)).status is ApprovalStatus.APPROVED
