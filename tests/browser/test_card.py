"""The approval card's script in Chromium: a host page frames the card, hands it a pending
approval as the gateway's strike result carries it, and notes the tool call the person's
Approve makes. Approving unedited must never read as the person's edit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import async_playwright

from gwanjong_gateway.channels.apps import META_KEY
from gwanjong_gateway.channels.card import CARD_HTML
from tests.browser.harness import ARGS, chromium

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

#: the host: answers the card's requests, hands it the result, keeps its tool calls
HOST = """<!doctype html><html><body><iframe id="card" style="width:100%;height:900px"></iframe>
<script>
var calls = []; var frame = document.getElementById("card");
window.addEventListener("message", function (e) {
  var m = e.data, w = frame.contentWindow;
  if (m.method === "ui/initialize") {
    w.postMessage({jsonrpc: "2.0", id: m.id, result: {}}, "*");
  } else if (m.method === "ui/notifications/initialized") {
    w.postMessage({jsonrpc: "2.0", method: "ui/notifications/tool-result", params: RESULT}, "*");
  } else if (m.method === "tools/call") {
    calls.push(m.params.arguments);
    w.postMessage({jsonrpc: "2.0", id: m.id, result: {structuredContent: {status: "posted"}}}, "*");
  }
});
frame.srcdoc = CARD;
</script></body></html>"""


async def approved_unedited(tmp_path: Path, text: str) -> list[dict[str, Any]]:
    """The tool calls the card makes when the person approves ``text`` as shown."""
    card = {"id": 1, "token": "t", "where": "a reply", "text": text, "shown": {"text": text}}
    result = {"structuredContent": {"status": "pending_approval"}, "_meta": {META_KEY: card}}
    script = {"RESULT": json.dumps(result), "CARD": json.dumps(CARD_HTML).replace("</", "<\\/")}
    host = HOST.replace("RESULT", script["RESULT"]).replace("CARD", script["CARD"])
    async with async_playwright() as pw:
        browser = await pw.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=chromium(), args=ARGS, headless=True
        )
        try:
            page = await browser.new_page()
            await page.set_content(host)
            await page.frame_locator("#card").locator("#approve").click()
            await page.wait_for_function("calls.length > 0")
            return await page.evaluate("calls")
        finally:
            await browser.close()


@pytest.mark.parametrize("text", ["\ufeffA text a BOM opens.", "Plain words."])
async def test_approving_unedited_on_the_card_sends_no_edit(tmp_path: Path, text: str) -> None:
    # the text is the server's, stripped as Python strips; a script's trim() also cuts
    # U+FEFF, which would turn the person's plain Approve into an edit without it
    [call] = await approved_unedited(tmp_path, text)
    assert call == {"approval_id": 1, "token": "t", "decision": "approve"}, call
