"""One exact write in the browser (issue 34): a Dev.to post waiting on the console shows
its title and tags, a person edits both in the Edit form, and the sandbox's write log holds
exactly what the page then shows as approved. Headless Chromium over the real gateway, the
real Dev.to server and the sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from gwanjong_gateway.record.store import StrikeStore
from gwanjong_sandbox.control import SandboxControl
from tests.browser.harness import live
from tests.e2e.strikes import scout_draft
from tests.mcp import call

pytestmark = [pytest.mark.anyio, pytest.mark.browser]
TEXT = "What cancellation taught us."


async def test_title_and_tags_edited_on_the_console_are_sent_exactly(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    async with live(sandbox, tmp_path, ["devto"]) as lv:
        oid = await scout_draft(lv.client, "devto", "rust async", "Rust async")
        post = {"action": "post", "title": "Draft title", "content": TEXT}
        answer = await call(lv.client, "strike", opportunity_id=oid, **post)
        assert answer["status"] == "pending_approval", answer
        approval_id = int(answer["approval"]["id"])
        page, seen = await lv.signed_in()
        listed = await page.inner_text("main")
        assert "Title: Draft title" in listed and "Tags: (none)" in listed
        await page.goto(f"{lv.console.base_url()}/approvals/{approval_id}?edit=1")
        await page.fill("textarea#title", "Cancellation, in practice")
        await page.fill("input#tags", "rust, async")
        await page.click("button.approve")
        outcome = await page.inner_text("#outcome")
        assert outcome.startswith("posted"), outcome
        assert await page.inner_text("span.tags") == "rust async"
        assert seen.dialogs == [] and seen.errors == [], seen
        decided = await lv.gw.records.run(StrikeStore.approval, approval_id)
        assert decided is not None and decided.edited
    [write] = [w for w in sandbox.writes("devto") if w["action"] == "write_post"]
    data = write["data"]
    assert (data["title"], data["tags"], data["body"]) == (
        "Cancellation, in practice",
        ["rust", "async"],
        TEXT,
    )
    assert decided.write.arguments() == {k: data[k] for k in ("title", "body", "tags")}


async def test_a_text_edit_on_the_console_sends_the_title_as_shown(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    # the person edits only the text, and the title they were shown must go out as it was,
    # or not at all; a title is one line on the platform, so one with a line break is
    # refused before any person is asked (it would not go out as shown)
    async with live(sandbox, tmp_path, ["devto"]) as lv:
        oid = await scout_draft(lv.client, "devto", "rust async", "Rust async")
        post = {"action": "post", "title": "Draft title\nsecond line", "content": TEXT}
        refused = await call(lv.client, "strike", opportunity_id=oid, **post)
        assert refused["status"] == "refused", refused
        assert "titles are one line: remove the line breaks" in refused["reason"], refused
        post["title"] = "Draft title, then more of it"
        answer = await call(lv.client, "strike", opportunity_id=oid, **post)
        page, _ = await lv.signed_in()
        await page.goto(f"{lv.console.base_url()}/approvals/{answer['approval']['id']}?edit=1")
        await page.fill("textarea#text", TEXT + " Edited.")
        await page.click("button.approve")
        assert (await page.inner_text("#outcome")).startswith("posted")
    sent = [w["data"] for w in sandbox.writes("devto") if w["action"] == "write_post"]
    assert [(d["title"], d["body"]) for d in sent] == [(post["title"], TEXT + " Edited.")]
