"""The person's work is kept (issue 34): a refused edit comes back with the person's own
text and the reason; an approval that could only be refused (the author cool-down, the
minimum interval, a pause) shows as blocked with why and from when, without Approve, and a
refused click adds no history row; one name for the operator; the past tense once decided;
a decline's reason reaches the model (status, and the next strike on that target).

Fast tier: the console's Starlette app in-process, the gateway over MCP with the fake
platform (comments open to programs), a fake clock."""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from gwanjong_gateway.console.app import when
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import ApprovalStatus, iso, operator_name
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.gateway.console.helpers import Served, approval, post, serving, sign_in, strike
from tests.gateway.helpers import gateway_of
from tests.gateway.strike.test_strike_chain import FOOTER, OPEN_FORUM
from tests.mcp import call

pytestmark = pytest.mark.anyio
TOPIC = "cancellation guards"
APPROVE_BUTTON = re.compile(r'name="decision" value="approve"')


@pytest.fixture
def fake() -> FakePlatform:
    fake = FakePlatform(OPEN_FORUM)
    # two posts by one author: approving a reply to one starts the author cool-down
    fake.add_post("p1", "Cancellation guards one", "Guards at each await.", author="ann")
    fake.add_post("p2", "Cancellation guards two", "More guards.", author="ann")
    fake.add_post("p3", "Cancellation guards three", "Other author.", author="bob")
    return fake


@pytest.fixture
async def s(
    fake: FakePlatform, clock: FakeClock, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[Served]:
    """The console over a confirm-mode gateway on ``fake``; the minimum interval between
    writes is the test's indirect param (none by default)."""
    platform = {"min_interval_s": getattr(request, "param", 0), "disclosure": FOOTER}
    gw, mcp = gateway_of(tmp_path, fake, wall=clock.time, writes="confirm", platform=platform)
    async with serving(gw, mcp, clock=clock.time) as served:
        yield served


async def reply(s: Served, title_part: str, text: str) -> int:
    got = await strike(s.client, "devto", title_part, "comment", text, TOPIC)
    assert got["status"] == "pending_approval", got
    return int(got["approval"]["id"])


async def rows(s: Served) -> list[Any]:
    return await s.gw.records.run(StrikeStore.history, limit=100)


def textarea(page: str) -> str:
    found = re.search(r'<textarea id="text" name="text"[^>]*>(.*?)</textarea>', page, re.S)
    assert found, "no edit form on the page"
    value = html.unescape(found.group(1))
    # as the HTML parser reads it: one newline right after <textarea> is not the value's
    return value.removeprefix("\n")


async def test_a_refused_edit_comes_back_with_the_persons_text(
    s: Served, fake: FakePlatform, clock: FakeClock
) -> None:
    approval_id = await reply(s, "one", "Guards around every await.")
    csrf = await sign_in(s)
    edit = "My own careful wording, <b>kept</b>,\r\nwithout the footer."
    refused = await post(s, f"/approvals/{approval_id}", csrf, decision="approve", text=edit)
    assert refused.status_code == 409
    assert "Keep the disclosure footer" in refused.text
    # the person's text, exactly as typed (line breaks as the form sends them back)
    assert textarea(refused.text) == edit.replace("\r\n", "\n")
    assert "<b>kept</b>" not in refused.text  # escaped, never markup
    assert (await approval(s.gw, approval_id)).status is ApprovalStatus.PENDING
    assert await rows(s) == [] and fake.writes == []


@pytest.mark.parametrize("s", [600], indirect=True)
async def test_an_edit_refused_as_too_soon_is_kept_and_adds_no_row(
    s: Served, fake: FakePlatform, clock: FakeClock
) -> None:
    first = await reply(s, "one", "First reply.")
    second = await reply(s, "three", "Second reply.")
    csrf = await sign_in(s)
    done = await post(s, f"/approvals/{first}", csrf, decision="approve")
    assert done.status_code == 200 and "posted" in done.text
    before = len(await rows(s))
    edit = "An edited second reply." + FOOTER
    for _ in range(3):  # each click is refused: none leaves a row
        refused = await post(s, f"/approvals/{second}", csrf, decision="approve", text=edit)
        assert refused.status_code == 409
        assert "Too soon" in refused.text and textarea(refused.text) == edit
        # the wait is named with the moment it ends, and there is no Approve to press
        assert f"It could be sent from <time>{when(clock.time() + 600)}" in refused.text
        assert "Approve the edited text" not in refused.text
    assert len(await rows(s)) == before and len(fake.writes) == 1
    assert (await approval(s.gw, second)).status is ApprovalStatus.PENDING
    clock.advance(601)  # the interval has passed: Approve is back and the edit goes out
    page = await s.http.get(f"/approvals/{second}")
    assert "Blocked" not in page.text and APPROVE_BUTTON.search(page.text)
    sent = await post(s, f"/approvals/{second}", csrf, decision="approve", text=edit)
    assert sent.status_code == 200 and "posted" in sent.text
    assert fake.writes[-1].data["body"] == edit


async def test_a_cool_down_blocked_approval_shows_why_and_when_without_approve(
    s: Served, fake: FakePlatform, clock: FakeClock
) -> None:
    first = await reply(s, "one", "A reply to ann.")
    second = await reply(s, "two", "Another reply to ann.")
    csrf = await sign_in(s)
    posted = await post(s, f"/approvals/{first}", csrf, decision="approve")
    assert "posted" in posted.text
    sent_at = clock.time()
    clock.advance(60)
    listing = await s.http.get("/approvals")
    card = listing.text.split(f'id="approval-{second}"')[1].split("</li>")[0]
    assert "Blocked" in card and "cool-down" in card
    until = when(sent_at + 7 * 86400)
    assert f"It could be sent from <time>{until}</time>" in card
    page = await s.http.get(f"/approvals/{second}")
    assert page.status_code == 200
    assert "<h1>Approval a2: blocked</h1>" in page.text
    assert "ann" in page.text and until in page.text
    assert not APPROVE_BUTTON.search(page.text) and "?edit=1" not in page.text
    assert 'value="decline"' in page.text  # declining is still the person's to do
    # a crafted POST (no button) is refused the same way: no row, still pending
    before = len(await rows(s))
    forced = await post(s, f"/approvals/{second}", csrf, decision="approve")
    assert forced.status_code == 409 and "cool-down" in forced.text
    assert len(await rows(s)) == before and len(fake.writes) == 1
    assert (await approval(s.gw, second)).status is ApprovalStatus.PENDING


async def test_decided_in_the_past_tense_by_one_name_and_the_reason_reaches_the_model(
    s: Served, fake: FakePlatform, clock: FakeClock
) -> None:
    me = operator_name()
    approved = await reply(s, "one", "A reply to ann.")
    declined = await reply(s, "three", "A reply to bob.")
    csrf = await sign_in(s)
    await post(s, f"/approvals/{approved}", csrf, decision="approve")
    decided_at = iso(clock.time())
    again = await post(s, f"/approvals/{approved}", csrf, decision="approve")
    assert again.status_code == 409 and "already approved" in again.text and len(fake.writes) == 1
    reason = "Too salesy\u202e\x1b\x07; say it\u200b plainly."  # person text, shown cleaned
    answer = await post(s, f"/approvals/{declined}", csrf, decision="decline", reason=reason)
    assert answer.status_code == 200
    page = await s.http.get(f"/approvals/{approved}")
    assert f"approved by {me} via console at {decided_at}; sent (record 1)" in page.text
    assert "was approved and sent" in page.text and "will be sent" not in page.text
    page = await s.http.get(f"/approvals/{declined}")
    assert f"declined by {me} via console" in page.text and "was not sent" in page.text
    listing = await s.http.get("/approvals")
    assert "Nothing waits for you." in listing.text and "; sent (record 1)" in listing.text

    # the model's view: status says how each ended, with the person's reason, cleaned
    status = await call(s.client, "status")
    said = {d["id"]: d for d in status["decisions"]}
    assert said[approved]["said"].startswith(f"approved by {me} via console")
    assert said[declined]["decided_by"] == me
    assert said[declined]["reason"] == "Too salesy; say it plainly."
    assert "\u202e" not in str(status) and "\x1b" not in str(status)
    # and the next strike on that target tells it the person said no, and why
    again = await strike(s.client, "devto", "three", "comment", "Plainly, then.", TOPIC)
    assert again["status"] == "pending_approval"
    assert again["reason"].startswith(
        f"A person declined this on {decided_at} (approval {declined}): Too salesy; say it plainly."
    )
    # a strike elsewhere carries no such note
    other = await strike(s.client, "devto", "two", "comment", "Hi ann.", TOPIC)
    assert "declined" not in str(other.get("reason", ""))
    # once the person approves the new text, nothing old is carried
    await post(s, f"/approvals/{again['approval']['id']}", csrf, decision="approve")
    assert fake.writes[-1].data["body"] == "Plainly, then." + FOOTER
