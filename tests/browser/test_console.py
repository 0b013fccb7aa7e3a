"""The console in headless Chromium over the real gateway, the real platform servers and
the sandbox: sign-in, approve / edit / decline, closing a hand-off, inbox, history, usage,
and a hostile corpus that must render inert and bounded. Screenshots (desktop and 375 px)
go to docs/img with GWANJONG_SCREENSHOTS=1."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page

from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import ApprovalStatus
from gwanjong_sandbox.control import SandboxControl
from tests.browser.harness import PHONE, Live, Seen, live
from tests.security.hostile import MARK, hostile_thread

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

RUST = ("rust async cancellation", "Rust async")
SQLITE = ("sqlite wal job queue", "SQLite WAL")
UV = ("uv workspace monorepo", "uv workspaces")


async def fits_a_phone(page: Page) -> None:
    """Nothing wider than the 375 px viewport: no sideways scrolling."""
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{page.url} is {width} px wide at 375 px"


async def pending(lv: Live, where: tuple[str, str], text: str) -> int:
    answer = await lv.strike("reddit", where[0], where[1], text)
    assert answer["status"] == "pending_approval", answer
    return int(answer["approval"]["id"])


def clean(seen: Seen) -> None:
    assert seen.dialogs == [] and seen.errors == [], seen


async def test_sign_in_once_then_approve_writes_exactly_once(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    async with live(sandbox, tmp_path, ["reddit"]) as lv:
        approval_id = await pending(lv, RUST, "Guards around each await fixed it for us.")
        page, seen = await lv.signed_in(link=lv.link)
        assert f"Approval {approval_id}" in await page.inner_text("main")
        await lv.shot(page, "approvals")
        # the link is void once used: a second browser page gets the refusal
        other, _ = await lv.page()
        await other.context.clear_cookies()
        answer = await other.goto(lv.link)
        assert answer is not None and answer.status == 403
        assert "gwanjong console" in await other.inner_text("main")
        assert await other.goto(lv.link.rsplit("/signin/", 1)[0] + "/approvals") is not None
        assert "Not signed in" in await other.inner_text("main")
        # sign in again: the first page's cookie was cleared above (one shared profile)
        page, seen = await lv.signed_in()
        await page.click(f"a[href='/approvals/{approval_id}'] >> nth=0")
        assert "Guards around each await fixed it for us." in await page.inner_text("pre.platform >> nth=0")
        await lv.shot(page, "approval")
        await page.click("button.approve")
        outcome = await page.inner_text("#outcome")
        assert outcome.startswith("posted"), outcome
        clean(seen)
        decided = await lv.gw.records.run(StrikeStore.approval, approval_id)
        assert decided is not None and decided.status is ApprovalStatus.APPROVED
        assert decided.channel == "console"
    [write] = sandbox.writes("reddit")
    assert "Guards around each await fixed it for us." in str(write["data"])
