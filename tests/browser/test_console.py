"""The console in headless Chromium over the real gateway, the real platform servers and
the sandbox: sign-in, approve / edit / decline, closing a hand-off, inbox, history, usage,
and a hostile corpus that must render inert and bounded. Screenshots (desktop and 375 px)
go to docs/img with GWANJONG_SCREENSHOTS=1."""

from __future__ import annotations

import time
from importlib.resources import files
from pathlib import Path

import pytest
from playwright.async_api import Page, async_playwright, expect

from gwanjong_gateway.console.charts import Bar, bars
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import ApprovalStatus
from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract.visible import show
from tests.browser.harness import ARGS, DESKTOP, PHONE, Live, Seen, chromium, live
from tests.fakes.clock import FakeClock
from tests.hostile_approvals import CORPUS, TAIL
from tests.security.hostile import MARK, hostile_thread

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

RUST = ("rust async cancellation", "Rust async")
SQLITE = ("sqlite wal job queue", "SQLite WAL")
UV = ("uv workspace monorepo", "uv workspaces")
TOOLS = ("get_comments", "write_comment", "capabilities", "mentions")
#: per chart: each row's label (x=0) ends left of the first bar (legend squares are 12 high)
LABELS_CLEAR = """(svgs) => svgs.map((svg) => {
    const bars = [...svg.querySelectorAll("rect")].filter((r) => r.getAttribute("height") === "16");
    const start = Math.min(...bars.map((r) => +r.getAttribute("x")));
    const labels = [...svg.querySelectorAll("text")].filter((t) => t.getAttribute("x") === "0");
    return labels.every((t) => t.getBBox().x + t.getBBox().width <= start);
})"""


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
        assert f"Approval a{approval_id}" in await page.inner_text("main")
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
        await page.click(f"a[href='/approvals/a{approval_id}'] >> nth=0")
        assert "Guards around each await fixed it for us." in await page.inner_text(
            "pre.platform >> nth=0"
        )
        await lv.shot(page, "approval")
        # by keyboard: the first Tab reaches the skip link; Enter on Approve submits it
        await page.keyboard.press("Tab")
        assert await page.evaluate("document.activeElement.className") == "skip"
        await page.focus("button.approve")
        await page.keyboard.press("Enter")
        outcome = await page.inner_text("#outcome")
        assert outcome.startswith("posted"), outcome
        clean(seen)
        decided = await lv.gw.records.run(StrikeStore.approval, approval_id)
        assert decided is not None and decided.status is ApprovalStatus.APPROVED
        assert decided.channel == "console"
    [write] = sandbox.writes("reddit")
    assert "Guards around each await fixed it for us." in str(write["data"])


async def test_edit_then_approve_sends_the_edited_text(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    async with live(sandbox, tmp_path, ["reddit"]) as lv:
        approval_id = await pending(lv, SQLITE, "WAL mode held up for us too.")
        page, seen = await lv.signed_in()
        await page.goto(f"{lv.console.base_url()}/approvals/{approval_id}")
        await page.click("a[href$='?edit=1']")
        await page.fill("textarea#text", "WAL mode held up for us, with busy_timeout set.")
        await lv.shot(page, "edit")
        await page.click("button.approve")
        outcome = await page.inner_text("#outcome")
        assert outcome.startswith("posted"), outcome
        assert "edited; sent" in await page.inner_text("main")
        clean(seen)
    [write] = sandbox.writes("reddit")
    assert "WAL mode held up for us, with busy_timeout set." in str(write["data"])
    assert "WAL mode held up for us too." not in str(write["data"])


async def test_decline_sends_nothing(sandbox: SandboxControl, tmp_path: Path) -> None:
    async with live(sandbox, tmp_path, ["reddit"]) as lv:
        approval_id = await pending(lv, UV, "One lock file changed everything.")
        page, seen = await lv.signed_in(PHONE)
        await page.goto(f"{lv.console.base_url()}/approvals/{approval_id}")
        await fits_a_phone(page)
        await lv.shot(page, "approval-375")
        await page.fill("input#reason", "not this one")
        await page.click("button.decline")
        outcome = await page.inner_text("#outcome")
        assert outcome.startswith("declined"), outcome
        # nothing left to decide: no buttons, and the list is empty
        assert await page.locator("button.approve").count() == 0
        await page.goto(f"{lv.console.base_url()}/approvals")
        assert "Nothing waits for you." in await page.inner_text("main")
        await fits_a_phone(page)
        clean(seen)
        decided = await lv.gw.records.run(StrikeStore.approval, approval_id)
        assert decided is not None and decided.status is ApprovalStatus.DECLINED
    assert sandbox.writes() == []


async def test_close_a_hand_off_with_its_url(sandbox: SandboxControl, tmp_path: Path) -> None:
    async with live(sandbox, tmp_path, ["devto"]) as lv:
        handed = await lv.strike("devto", *RUST, "Explicit guards saved us as well.")
        assert handed["status"] == "handoff", handed
        record = int(handed["record"])
        page, seen = await lv.signed_in()
        await page.goto(f"{lv.console.base_url()}/handoffs")
        card = page.locator(f"#handoff-h{record}")
        assert "Explicit guards saved us as well." in await card.inner_text()
        assert f"Hand-off h{record}" in await card.inner_text()
        opener = card.locator("a.button")
        assert (await opener.get_attribute("href") or "").startswith("https://")
        assert await opener.get_attribute("rel") == "noopener noreferrer"
        await lv.shot(page, "handoffs")
        phone, _ = await lv.page(PHONE)
        await phone.goto(f"{lv.console.base_url()}/handoffs")
        await fits_a_phone(phone)
        await lv.shot(phone, "handoffs-375")
        posted = "https://dev.to/me/comment/abc123"
        await card.locator("input[name=url]").fill(posted)
        await card.locator("button.close").click()
        await page.wait_for_url(f"**/history/{record}")
        main = await page.inner_text("main")
        assert "posted" in main and posted in main
        row = await lv.gw.records.run(StrikeStore.get, record)
        assert row is not None and str(row.status) == "posted" and row.result_url == posted
        await page.goto(f"{lv.console.base_url()}/handoffs")
        assert "No hand-off waits." in await page.inner_text("main")
        clean(seen)
    assert sandbox.writes() == []


async def test_dismiss_a_hand_off_and_an_expired_one_is_gone(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    clock = FakeClock(wall=time.time())  # the gateway's wall clock: the expiry moves with it
    review = {"review": {"handoff_expire_after_s": 3600}}
    async with live(sandbox, tmp_path, ["devto"], review, wall=clock.time) as lv:
        first = await lv.strike("devto", *RUST, "Explicit guards saved us as well.")
        second = await lv.strike("devto", *SQLITE, "WAL mode and one writer did it for us.")
        assert first["status"] == second["status"] == "handoff", (first, second)
        dropped, kept = int(first["record"]), int(second["record"])
        page, seen = await lv.signed_in()
        await page.goto(f"{lv.console.base_url()}/handoffs")
        card = page.locator(f"#handoff-h{dropped}")
        await card.locator("button.dismiss").click()
        await page.wait_for_url("**/handoffs")
        main = await page.inner_text("main")
        assert f"Hand-off h{dropped}" not in main and f"Hand-off h{kept}" in main
        row = await lv.gw.records.run(StrikeStore.get, dropped)
        assert row is not None and str(row.status) == "dismissed"  # kept in history
        await page.goto(f"{lv.console.base_url()}/history/{dropped}")
        assert "dismissed" in await page.inner_text("main")
        clock.advance(3601)  # past [review] handoff_expire_after_s
        await page.goto(f"{lv.console.base_url()}/handoffs")
        assert "No hand-off waits." in await page.inner_text("main")
        row = await lv.gw.records.run(StrikeStore.get, kept)
        assert row is not None and str(row.status) == "expired"
        clean(seen)
    assert sandbox.writes() == []


async def test_inbox_history_and_usage_show_what_the_sandbox_holds(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    async with live(sandbox, tmp_path, ["reddit", "bluesky"]) as lv:
        approval_id = await pending(lv, RUST, "Guards around each await.")
        page, seen = await lv.signed_in()
        await page.goto(f"{lv.console.base_url()}/approvals/{approval_id}")
        await page.click("button.approve")
        assert (await page.inner_text("#outcome")).startswith("posted")
        base = lv.console.base_url()
        await page.goto(f"{base}/inbox")
        inbox = await page.inner_text("main")
        assert "curious_carl" in inbox or "curious-carl" in inbox
        assert "Looking for feedback on my MCP gateway design" in inbox
        await lv.shot(page, "inbox")
        await page.goto(f"{base}/inbox")  # looking does not consume: the same summons again
        assert "Looking for feedback on my MCP gateway design" in await page.inner_text("main")
        await page.goto(f"{base}/history")
        history = await page.inner_text("table.history")
        assert "reddit" in history and "posted" in history
        await lv.shot(page, "history")
        await page.goto(f"{base}/history?platform=bluesky")
        assert "No record matches." in await page.inner_text("main")
        await page.goto(f"{base}/history?status=posted&platform=reddit")
        await page.click("table.history a >> nth=0")
        detail = await page.inner_text("main")
        assert "Guards around each await." in detail
        assert "via console" in detail and "Context the model saw" in detail
        await lv.shot(page, "record")
        # the usage page's bars come from the usage log's real figures
        figures = lv.console.usage().report(7 * 86400)
        calls = sum(t["calls"] for t in figures["platform_tools"] if t["platform"] == "reddit")
        assert calls > 0
        await page.goto(f"{base}/usage")
        charts = page.locator("svg.chart")
        assert await charts.count() == 4
        first = await charts.nth(0).inner_html()
        assert "reddit" in first and f">{calls}<" in first
        assert await page.locator("svg.chart rect").count() >= 2
        # every row's label ends before its bar starts, as the browser lays the text out
        assert await charts.evaluate_all(LABELS_CLEAR) == [True] * 4
        health = await page.inner_text("table")
        assert "reddit" in health and "bluesky" in health
        await lv.shot(page, "usage")
        phone, _ = await lv.page(PHONE)
        for path in ("/inbox", "/history", "/usage"):
            await phone.goto(base + path)
            await fits_a_phone(phone)
        await lv.shot(phone, "usage-375")
        clean(seen)


async def test_chart_labels_end_before_their_bars() -> None:
    """The longest labels the usage page draws ("hackernews get_comments"), in the console's
    own font and width: none runs into its bar."""
    css = (files("gwanjong_gateway.console") / "static" / "console.css").read_text()
    rows = [Bar(f"{p} {t}", [("ms", 3500.0)]) for p in ("hackernews", "bluesky") for t in TOOLS]
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium(), args=ARGS)
        page = await browser.new_page(viewport={"width": DESKTOP["width"], "height": 900})
        await page.set_content(f"<style>{css}</style><figure>{bars('p95', rows, ' ms')}</figure>")
        assert await page.locator("svg.chart").evaluate_all(LABELS_CLEAR) == [True]
        await browser.close()


async def test_a_hostile_corpus_renders_inert_and_bounded(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    sandbox.add_post(hostile_thread())
    async with live(sandbox, tmp_path, ["reddit"]) as lv:
        answer = await lv.strike("reddit", "quuxbaz", MARK, "A calm answer.")
        assert answer["status"] == "pending_approval", answer
        approval_id = int(answer["approval"]["id"])
        page, seen = await lv.signed_in()
        base = lv.console.base_url()
        pages = [f"/approvals/{approval_id}", "/approvals", "/inbox"]
        for path in pages:
            response = await page.goto(base + path)
            assert response is not None and response.status == 200, path
            await inert(page, path)
        await page.goto(f"{base}/approvals/{approval_id}")
        await page.locator("h2", has_text="The post it answers").scroll_into_view_if_needed()
        await lv.shot(page, "hostile")
        await page.click("button.decline")
        record = (await lv.gw.records.run(StrikeStore.approval, approval_id)).record  # type: ignore[union-attr]
        await page.goto(f"{base}/history/{record}")
        await inert(page, "/history")
        phone, phone_seen = await lv.page(PHONE)
        await phone.goto(f"{base}/approvals/{approval_id}")
        await fits_a_phone(phone)
        clean(seen)
        clean(phone_seen)
    assert sandbox.writes() == []


#: the last characters of a box are in sight once it is scrolled to its end
IN_SIGHT = """(el) => {
  el.scrollTop = el.scrollHeight;
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  let last = null;
  while (walker.nextNode()) { last = walker.currentNode; }
  const range = document.createRange();
  range.setStart(last, Math.max(0, last.length - 8));
  range.setEnd(last, last.length);
  const end = range.getBoundingClientRect(), box = el.getBoundingClientRect();
  return {
    scrolls: el.scrollHeight > el.clientHeight,
    inSight: end.top >= box.top && end.bottom <= box.bottom + 1,
    text: el.textContent,
  };
}"""


async def test_a_long_text_is_whole_by_scrolling_and_copied_whole(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    footer = "-- drafted with gwanjong"
    # 5,000 characters, 4,200 blank lines, then a tail: the page must show all of it
    text = CORPUS["long"][:5000] + "\n" * 4201 + TAIL
    async with live(sandbox, tmp_path, ["reddit", "devto"], platform={"disclosure": footer}) as lv:
        approval_id = await pending(lv, RUST, text)
        page, seen = await lv.signed_in()
        await page.goto(f"{lv.console.base_url()}/approvals/{approval_id}")
        box = await page.locator("#exact").evaluate(IN_SIGHT)
        sent = (await lv.gw.records.run(StrikeStore.approval, approval_id)).text  # type: ignore[union-attr]
        assert sent.endswith(footer) and box["text"] == show(sent).text
        assert box["scrolls"] and box["inSight"], box  # scrolled to its end: the footer
        assert "⟦4,200 blank lines⟧" in box["text"] and TAIL in box["text"]
        # a hand-off's Copy text copies the exact text, whole, footer included
        handed = await lv.strike("devto", *RUST, text)
        assert handed["status"] == "handoff", handed
        record = int(handed["record"])
        await page.context.grant_permissions(
            ["clipboard-read", "clipboard-write"], origin=lv.console.base_url()
        )
        await page.goto(f"{lv.console.base_url()}/handoffs")
        card = page.locator(f"#handoff-h{record}")
        shown = await card.locator(f"#text-{record}").evaluate(IN_SIGHT)
        assert shown["scrolls"] and shown["inSight"] and footer in shown["text"], shown
        await card.locator("button.copy").click()
        # the page's CSP allows no eval, so wait on the element, not on a script
        await card.locator("button.copy", has_text="Copied").wait_for()
        copied = await page.evaluate("navigator.clipboard.readText()")
        row = await lv.gw.records.run(StrikeStore.get, record)
        assert row is not None and row.content.endswith(footer)
        assert copied == row.content and copied.startswith(text)  # not one character lost
        clean(seen)
    assert sandbox.writes() == []


async def inert(page: Page, path: str) -> None:
    """No script but ours, no element the platform's text made, no javascript: link, no
    hidden or steering character, and a bounded page."""
    scripts = await page.evaluate("[...document.scripts].map(s => s.src)")
    assert all(src.endswith("/static/copy.js") for src in scripts), (path, scripts)
    assert await page.locator("pre.platform b, pre.platform script, main b").count() == 0, path
    hrefs = await page.evaluate("[...document.links].map(a => a.getAttribute('href'))")
    for href in hrefs:
        assert href.startswith(("/", "#", "https://", "http://")), (path, href)
    external = await page.evaluate(
        "[...document.links].filter(a => /^https?:/.test(a.getAttribute('href'))).map(a => a.rel)"
    )
    assert all(rel == "noopener noreferrer" for rel in external), (path, external)
    html = await page.content()
    assert len(html) < 150_000, (path, len(html))
    text = await page.inner_text("body")
    for hidden in ("\u202e", "\u200b", "\u2066", "\x1b", "\ufeff"):
        assert hidden not in text, (path, repr(hidden))
    if path.startswith("/approvals/"):  # the post it answers: the markup shown as text
        assert "<script>alert(1)</script>" in text and "[click](javascript:alert(1))" in text
        assert "more characters not shown" in text  # the 1 MB body, cut


FOOTER = "\n\n^(drafted with an AI assistant)"


async def test_a_refused_edit_keeps_the_edited_text(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    async with live(sandbox, tmp_path, ["reddit"], platform={"disclosure": FOOTER}) as lv:
        approval_id = await pending(lv, SQLITE, "WAL mode held up for us too.")
        page, seen = await lv.signed_in()
        await page.goto(f"{lv.console.base_url()}/approvals/{approval_id}")
        await page.click("a[href$='?edit=1']")
        mine = "WAL held up for us,\nonce busy_timeout was set. (footer dropped by mistake)"
        await page.fill("textarea#text", mine)
        await page.click("button.approve")
        # refused, and the page holds the person's own text, not the original
        assert "Keep the disclosure footer" in await page.inner_text("#outcome")
        assert await page.input_value("textarea#text") == mine
        assert sandbox.writes() == []
        kept = await lv.gw.records.run(StrikeStore.approval, approval_id)
        assert kept is not None and kept.status is ApprovalStatus.PENDING
        # the person finishes their own edit in place and approves it
        await page.fill("textarea#text", mine + FOOTER)
        await page.click("button.approve")
        assert (await page.inner_text("#outcome")).startswith("posted")
        clean(seen)
    [write] = sandbox.writes("reddit")
    assert "once busy_timeout was set." in str(write["data"])


async def test_a_cool_down_blocked_approval_shows_why_and_when_without_approve(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    for n in ("one", "two"):
        sandbox.add_post(
            {
                "key": f"kept-{n}",
                "title": f"Ferrule zyzzyva {n}",
                "body": "How do you size a ferrule for a zyzzyva?",
                "author": "ann_ferrule",
                "tags": ["zyzzyva"],
                "likes": 5,
                "hours_ago": 1,
            }
        )
    week = {"safety": {"author_cooldown_days": 7}}
    async with live(sandbox, tmp_path, ["reddit"], tables=week) as lv:
        topic = "ferrule zyzzyva"
        first = await pending(lv, (topic, "zyzzyva one"), "Measure the bore first.")
        second = await pending(lv, (topic, "zyzzyva two"), "Same answer as the other.")
        page, seen = await lv.signed_in()
        await page.goto(f"{lv.console.base_url()}/approvals/{first}")
        await page.click("button.approve")
        assert (await page.inner_text("#outcome")).startswith("posted")
        posted = await lv.gw.records.run(StrikeStore.approval, first)
        assert posted is not None and posted.decided_at is not None
        await page.goto(f"{lv.console.base_url()}/approvals")
        card = await page.inner_text(f"#approval-{second}")
        assert "Blocked" in card and "cool-down" in card and "ann_ferrule" in card
        await page.goto(f"{lv.console.base_url()}/approvals/{second}")
        blocked = await page.inner_text("#blocked")
        assert "cool-down is 7 days" in blocked and "It could be sent from" in blocked
        assert await page.locator("button.approve").count() == 0
        assert await page.locator("a[href$='?edit=1']").count() == 0
        assert await page.locator("button.decline").count() == 1
        assert (await page.inner_text("h1")).endswith("blocked")
        await page.set_viewport_size({"width": PHONE["width"], "height": PHONE["height"]})
        await fits_a_phone(page)
        clean(seen)
        waiting = await lv.gw.records.run(StrikeStore.approval, second)
        assert waiting is not None and waiting.status is ApprovalStatus.PENDING
    assert len(sandbox.writes("reddit")) == 1


async def test_the_navigation_counts_what_waits_and_updates_without_a_reload(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    async with live(sandbox, tmp_path, ["reddit"]) as lv:
        await pending(lv, RUST, "Guards around each await fixed it for us.")
        page, seen = await lv.signed_in(link=lv.link)
        badge = "nav [data-count='approvals']"
        # the page's CSP allows no eval: wait on the element, not on a script
        await expect(page.locator(badge)).to_have_text("1")
        assert await page.inner_text("nav [data-count='handoffs']") == ""  # none: no badge
        await pending(lv, SQLITE, "WAL mode held up for us too.")
        # no reload: the script asks /counts.json again (here on focus; else every 15 s)
        await page.evaluate("window.dispatchEvent(new Event('focus'))")
        await expect(page.locator(badge)).to_have_text("2")
        clean(seen)  # no CSP violation, no script error
