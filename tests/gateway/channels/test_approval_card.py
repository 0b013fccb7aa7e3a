"""The MCP Apps card: a host that declared the UI extension gets the approval's one-time
token in the strike result's `_meta` (never in what the model reads) and decides through
the app-only tool; a client without the extension does not list that tool, and calling it
without the token (what a tricked model can do) is refused with nothing written.

Real parts: the gateway over MCP (in-memory transport, both protocol eras), the fake
platform of tests/fakes.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from gwanjong_gateway.channels.apps import APP_TOOL, CARD_URI, META_KEY
from gwanjong_shared.contract.text import graphemes
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import LINKS
from tests.gateway.approval_clients import (
    CLUSTERS,
    COUNTED,
    FOOTER,
    TEXT,
    UI,
    approval_row,
    apps_host,
    pending,
)
from tests.gateway.team_gateway import team_gateway
from tests.mcp import call, error_of

pytestmark = pytest.mark.anyio


async def test_an_apps_host_approves_with_the_card(
    tmp_path: Path, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    platform = FakePlatform(LINKS)
    async with apps_host(fake_gateway(tmp_path, platform, writes="confirm"), mode) as host:
        tools = {t.name: t.meta or {} for t in await host.list_tools()}
        assert tools[APP_TOOL]["ui"]["visibility"] == ["app"]
        assert tools["strike"]["ui"]["resourceUri"] == CARD_URI
        listed = {str(r.uri): r for r in await host.list_resources()}
        assert listed[CARD_URI].mime_type == "text/html;profile=mcp-app"
        [content] = await host.read_resource(CARD_URI)
        result = await pending(host)
        card = (result.meta or {})[META_KEY]
        approval_id, token = card["id"], card["token"]
        assert card["text"] == TEXT + FOOTER and "reddit" in card["where"]
        assert card["target"].startswith("https://")
        model_view = str(result.content) + str(result.structured_content)
        assert token not in model_view  # the model reads content/structuredContent only
        assert "approval card" in model_view  # it is told where the person decides
        assert platform.writes == []
        args = {"approval_id": approval_id, "token": token, "decision": "approve"}
        done = await call(host, APP_TOOL, **args)
        assert done["status"] == "posted", done
        replay = await error_of(host, APP_TOOL, **args)
        assert replay.startswith("invalid_input") and "already approved" in replay
    assert [w.data["body"] for w in platform.writes] == [TEXT + FOOTER]
    row = approval_row(tmp_path, approval_id)
    assert (row.status, row.channel) == ("approved", "app")
    assert caplog.records and token not in "\n".join(r.getMessage() for r in caplog.records)
    page = content.text  # type: ignore[union-attr]  # one self-contained page
    assert page.startswith("<!doctype html>") and "ui/initialize" in page
    assert "ui/notifications/tool-result" in page and f'"{APP_TOOL}"' in page
    assert META_KEY in page
    # nothing loaded from elsewhere: no src/href attribute, no import, no fetch
    assert not re.search(r"\b(src|href)\s*=|@import|fetch\(|XMLHttpRequest|<link", page)
    assert "innerHTML" not in page  # values are shown as text, never parsed as HTML


async def test_decline_on_the_card_writes_nothing(tmp_path: Path, mode: str) -> None:
    platform = FakePlatform(LINKS)
    async with apps_host(fake_gateway(tmp_path, platform, writes="confirm"), mode) as host:
        card = (await pending(host)).meta[META_KEY]
        args = {"approval_id": card["id"], "token": card["token"], "decision": "decline"}
        done = await call(host, APP_TOOL, **args)
        assert done["status"] == "declined", done
    assert platform.writes == []
    row = approval_row(tmp_path, card["id"])
    assert (row.status, row.channel) == ("declined", "app")


async def test_without_the_extension_the_tool_is_unlisted_and_the_model_cannot_approve(
    tmp_path: Path, mode: str
) -> None:
    platform = FakePlatform(LINKS)
    async with Client(fake_gateway(tmp_path, platform, writes="confirm"), mode=mode) as model:
        tools = {t.name: t.meta or {} for t in await model.list_tools()}
        assert APP_TOOL not in tools and "ui" not in tools["strike"]
        result = await pending(model)
        assert META_KEY not in (result.meta or {})  # no card, no token
        approval_id = result.structured_content["approval"]["id"]
        tries = [{}, {"token": ""}, {"token": "A" * 32}, {"token": "guess", "decision": "decline"}]
        attempts = [
            await error_of(model, APP_TOOL, approval_id=approval_id, **{"decision": "approve", **t})
            for t in tries
        ]
    assert attempts[0].startswith("invalid_input") and "token" in attempts[0]
    assert attempts[1].startswith("invalid_input")
    assert all(a.startswith("not_found") for a in attempts[2:]), attempts
    assert platform.writes == []
    assert approval_row(tmp_path, approval_id).status == "pending"


async def test_team_mode_only_the_owner_decides_even_with_the_token_and_may_edit(
    tmp_path: Path, mode: str
) -> None:
    """Signed in over HTTP: bob holding alice's token still may not decide her approval
    (`[review] approvers` is empty); alice may, with an edit, and the audit names her."""
    platform = FakePlatform(LINKS)
    edited = "Edited on the card." + FOOTER
    async with team_gateway(tmp_path, platform, writes="confirm") as team:

        def host(user: str) -> Client[Any]:
            transport = StreamableHttpTransport(team.url, auth=team.tokens[user])
            return Client(transport, mode=mode, timeout=60, extensions=UI)  # type: ignore[arg-type]

        async with host("alice") as alice, host("bob") as bob:
            card = (await pending(alice)).meta[META_KEY]
            args = {"approval_id": card["id"], "token": card["token"]}
            refused = await error_of(bob, APP_TOOL, **args, decision="approve")
            assert refused.startswith("not_found"), refused
            assert platform.writes == []
            # alice may, and the card can send an edit (not without the footer)
            bad = await error_of(alice, APP_TOOL, **args, decision="approve", text="No footer.")
            assert bad.startswith("invalid_input") and "disclosure footer" in bad
            done = await call(alice, APP_TOOL, **args, decision="approve", text=edited)
            assert done["status"] == "posted", done
    assert [w.data["body"] for w in platform.writes] == [edited]
    row = approval_row(tmp_path, card["id"])
    assert (row.status, row.channel, row.edited) == ("approved", "app", True)
    assert row.decided_by == row.principal == "alice"


async def test_the_cards_outcome_messages_are_marked(tmp_path: Path) -> None:
    """What the card says after a decision (the reason it was not sent, why it was refused)
    can quote a platform or the config: drawn as the rest of the card, each hidden
    character a mark, none raw (the card sets it with textContent, which marks nothing)."""
    platform = FakePlatform(LINKS)
    footer = "^(a bot\u3164)"  # U+3164 HANGUL FILLER draws nothing
    gateway = fake_gateway(tmp_path, platform, writes="confirm", platform={"disclosure": footer})
    async with apps_host(gateway) as host:
        card = (await pending(host, TEXT + "\n\n" + footer)).meta[META_KEY]
        args = {"approval_id": card["id"], "token": card["token"], "decision": "approve"}
        refused = await error_of(host, APP_TOOL, **args, text="No footer.")
        assert "\u3164" not in refused and "^(a bot⟦U+3164⟧)" in refused, refused
        target = approval_row(tmp_path, card["id"]).target
        platform.judge(target, "human", "Locked by the mods\u200b\u034f.")
        done = await call(host, APP_TOOL, **args)
    assert done["status"] == "handoff" and done["reason"] == "Locked by the mods⟦U+200B⟧⟦U+034F⟧."
    assert platform.writes == []


async def test_the_card_counts_the_text_as_the_platform_does(tmp_path: Path, mode: str) -> None:
    platform = FakePlatform(COUNTED)  # counts graphemes, 300 to a comment
    async with apps_host(fake_gateway(tmp_path, platform, writes="confirm"), mode) as host:
        card = (await pending(host, CLUSTERS)).meta[META_KEY]
    sent = CLUSTERS + FOOTER
    assert graphemes(sent) < len(sent)
    size = f"{graphemes(sent)} of 300 graphemes as reddit counts them"
    assert card["shown"]["length"] == f"{size} (disclosure footer included)"
