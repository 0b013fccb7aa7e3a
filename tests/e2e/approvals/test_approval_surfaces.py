"""A person approves from the page and from the app card, end to end: a real gateway
process serving HTTP, the real platform server, the sandbox. Each ends with exactly one
write in the sandbox's write log and the audit naming the channel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from mcp.types import ElicitRequestURLParams

from gwanjong_gateway.channels.apps import APP_TOOL, META_KEY
from gwanjong_gateway.rules.approvals import Approval
from gwanjong_sandbox.control import SandboxControl
from tests.e2e.strikes import history, http_gateway, live_config, scout_draft, session, strike
from tests.gateway.approval_clients import approval_row, apps_host, decide, parts, url_only
from tests.hostile_approvals import CORPUS, REFUSED, assert_seen
from tests.mcp import call
from tests.platforms import needs
from tests.security.hostile import strings

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
MODES = ["legacy", "auto"]
POST = {"title": "Approved by a person", "content": "Written only after a person said yes."}


def approval(tmp: Path, approval_id: int) -> Approval:
    return approval_row(tmp / "state", approval_id)


def audited(tmp: Path, approval_id: int, channel: str) -> None:
    """The approval consumed by that channel, and the posted row saying so."""
    row = approval(tmp, approval_id)
    assert (row.status, row.channel) == ("approved", channel)
    posted = [r for r in history(tmp) if r.action == "post"]
    assert [r.status for r in posted] == ["posted"]
    assert posted[0].approver == "human"
    assert any(f"via {channel} (approval {approval_id})" in str(d) for d in posted[0].policy)


@pytest.mark.parametrize("mode", MODES)
async def test_url_only_client_then_the_page(
    sandbox: SandboxControl, tmp_path: Path, mode: str
) -> None:
    needs("devto")
    urls: list[str] = []

    async def handler(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        assert isinstance(params, ElicitRequestURLParams) and response_type is None
        urls.append(params.url)
        return ElicitResult(action="accept")

    cfg = live_config(tmp_path, sandbox, ["devto"], "confirm", settings={"call_timeout_s": 30})
    with http_gateway(cfg) as url:
        client = url_only(Client(session(url), mode=mode, timeout=90, elicitation_handler=handler))
        async with client, httpx.AsyncClient(timeout=60) as http:
            oid = await scout_draft(client, "devto", "rust async", "Rust async")
            pending = await strike(client, oid, "post", POST["content"], POST["title"])
            assert pending["status"] == "pending_approval", pending
            assert len(urls) == 1 and urls[0] not in str(pending)
            assert sandbox.writes("devto") == []
            done = await decide(http, urls[0], "approve")  # a real HTTP request, a real page
            assert done.status_code == 200 and "Approved and sent." in done.text, done.text
            replay = await http.post(urls[0], data={"decision": "approve"})
            assert replay.status_code in (403, 409)
    assert len(sandbox.writes("devto")) == 1
    audited(tmp_path, parts(urls[0])[1], "page")


@pytest.mark.parametrize("mode", MODES)
async def test_an_apps_host_approves_with_the_card(
    sandbox: SandboxControl, tmp_path: Path, mode: str
) -> None:
    needs("devto")
    cfg = live_config(tmp_path, sandbox, ["devto"], "confirm", settings={"call_timeout_s": 30})
    with http_gateway(cfg) as url:
        async with apps_host(session(url), mode, timeout=90) as host:
            oid = await scout_draft(host, "devto", "rust async", "Rust async")
            result = await host.call_tool(
                "strike", {"opportunity_id": oid, "action": "post", **POST}
            )
            assert result.structured_content is not None
            assert result.structured_content["status"] == "pending_approval"
            card = (result.meta or {})[META_KEY]
            assert card["token"] not in str(result.content) + str(result.structured_content)
            assert sandbox.writes("devto") == []
            args = {"approval_id": card["id"], "token": card["token"], "decision": "approve"}
            done = await call(host, APP_TOOL, **args)
            assert done["status"] == "posted", done
    assert len(sandbox.writes("devto")) == 1
    audited(tmp_path, card["id"], "app")


async def test_the_hostile_corpus_through_the_dialog_and_the_page(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    """Refused texts are refused by name and position before anyone is asked; a text with
    4,200 blank lines before its tail is shown whole in the dialog, a 10,000-character one
    on the page, and the platform receives exactly the approved characters."""
    needs("devto")
    messages: list[str] = []
    urls: list[str] = []

    async def dialog(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        messages.append(message)
        return ElicitResult(action="cancel")  # closed: the approval stays pending

    async def link(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        urls.append(params.url)
        return ElicitResult(action="accept")

    cfg = live_config(tmp_path, sandbox, ["devto"], "confirm", settings={"call_timeout_s": 30})
    with http_gateway(cfg) as url:
        form = Client(session(url), mode="legacy", timeout=90, elicitation_handler=dialog)
        async with form:
            oid = await scout_draft(form, "devto", "rust async", "Rust async")
            for name, (first, at) in REFUSED.items():
                refused = await strike(form, oid, "post", CORPUS[name], POST["title"])
                assert refused["status"] == "refused", refused
                assert first in refused["reason"] and f"at character {at}" in refused["reason"]
            assert messages == [] and sandbox.writes("devto") == []
            text = CORPUS["blank_tail"] + " " + CORPUS["emoji"]
            waiting = await strike(form, oid, "post", text, POST["title"])
            assert waiting["status"] == "pending_approval", waiting
            (said,) = messages
            assert_seen(said, approval(tmp_path, int(waiting["approval"]["id"])).text)
        paged = url_only(Client(session(url), mode="legacy", timeout=90, elicitation_handler=link))
        async with paged, httpx.AsyncClient(timeout=60) as http:
            oid = await scout_draft(paged, "devto", "rust async", "Rust async")
            pending = await strike(paged, oid, "post", CORPUS["long"], "A long one")
            assert pending["status"] == "pending_approval", pending
            row = approval(tmp_path, int(pending["approval"]["id"]))
            assert row.text.startswith(CORPUS["long"]) and len(row.text) > 10_000  # + footer
            page = (await http.get(urls[0])).text
            assert_seen(page.split("<textarea", 1)[0], row.text, escaped=True)
            done = await decide(http, urls[0], "approve")
            assert done.status_code == 200 and "Approved and sent." in done.text, done.text
    (write,) = sandbox.writes("devto")
    sent = [text for _, text in strings(write["data"])]
    assert row.text in sent  # exactly the approved characters
