"""Each channel its own token: the one-approval page's link (which a client may show the
model: in the transcript, in a stateless-era input-required result, or told in text) and the
MCP Apps card's (`_meta`, for the card only). A model in an Apps host that reads the link
must not approve its own write through the card's tool `approval_decide`, and the card's
token opens no page.

Real parts: the gateway over MCP (in-memory transport, both protocol eras), the fake
platform of tests/fakes, the real page listener, httpx as the browser.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client

from gwanjong_gateway.channels.apps import APP_TOOL, META_KEY
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import Channel, page_token, token_fits, token_hash
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.gateway.approval_clients import (
    FOOTER,
    TEXT,
    UI,
    approval_row,
    decide,
    parts,
    pending,
    url_only,
)
from tests.gateway.channels.test_approval_page import Person, links
from tests.gateway.rows import approval_of
from tests.mcp import call, error_of

pytestmark = pytest.mark.anyio


def apps_and_url(platform: FakePlatform, tmp_path: Path, person: Person, mode: str) -> Client[Any]:
    """A host that renders the card and declared only URL-mode elicitation: both the
    page's link and the card's token may reach it, and its model may read the link."""
    server = fake_gateway(tmp_path, platform, writes="confirm")
    handlers = {"elicitation_handler": person.handler, "message_handler": person.on_message}
    return url_only(Client(server, mode=mode, extensions=UI, **handlers))


async def test_the_model_holding_the_page_link_cannot_approve_through_the_card_tool(
    tmp_path: Path, mode: str
) -> None:
    platform, person = links(), Person()
    async with (
        apps_and_url(platform, tmp_path, person, mode) as model,
        httpx.AsyncClient(timeout=60) as http,
    ):
        result = await pending(model)
        [url] = person.urls
        _origin, approval_id, link_token = parts(url)  # what the model may have read
        args = {"approval_id": approval_id, "token": link_token}
        for decision in ("approve", "decline"):
            tried = await error_of(model, APP_TOOL, **args, decision=decision)
            assert tried.startswith("not_found"), tried
        assert platform.writes == []
        assert approval_row(tmp_path, approval_id).status == "pending"
        card = (result.meta or {}).get(META_KEY)
        if card is not None:  # the handshake era shows the card too: another token
            assert card["token"] != link_token
        # the page, with its own token, is still the person's
        done = await decide(http, url, "approve")
        assert done.status_code == 200 and "Approved and sent." in done.text
    assert [w.data["body"] for w in platform.writes] == [TEXT + FOOTER]
    row = approval_row(tmp_path, approval_id)
    assert (row.status, row.channel) == ("approved", "page")


async def test_the_cards_token_opens_no_page_and_approves_on_the_card(tmp_path: Path) -> None:
    """The handshake era, where one strike gives both: the card's token in the page's link
    is a wrong link (404, nothing decided), and the card still approves with it."""
    platform, person = links(), Person()
    async with (
        apps_and_url(platform, tmp_path, person, "legacy") as host,
        httpx.AsyncClient(timeout=60) as http,
    ):
        card = (await pending(host)).meta[META_KEY]
        [url] = person.urls
        origin, approval_id, link_token = parts(url)
        assert card["id"] == approval_id and card["token"] != link_token
        forged = f"{origin}/approval/{approval_id}/{card['token']}"
        assert (await http.get(forged)).status_code == 404
        form = {"decision": "approve", "csrf": "0" * 64}
        posted = await http.post(forged, data=form, headers={"Origin": origin})
        assert posted.status_code == 404
        assert platform.writes == []
        args = {"approval_id": approval_id, "token": card["token"], "decision": "approve"}
        done = await call(host, APP_TOOL, **args)
        assert done["status"] == "posted", done
        late = await http.get(url)  # the page now only says how it ended
        assert late.status_code == 200 and "already approved" in late.text
    assert [w.data["body"] for w in platform.writes] == [TEXT + FOOTER]
    row = approval_row(tmp_path, approval_id)
    assert (row.status, row.channel) == ("approved", "app")


def test_each_token_fits_its_channel_only_and_an_older_shared_token_not_the_card(
    tmp_path: Path,
) -> None:
    """The record keeps the hash of the page's token, which the card's makes (one way). An
    approval opened before (one token for link and card, its plain hash kept) still opens
    its page, and approves nothing on the card: its token may have been shown the model."""
    card = "c" * 43
    with closing(StrikeStore(tmp_path / "gwanjong.db")) as store:
        now, kept = 1_000.0, token_hash(page_token(card))
        new, _ = store.open_approval(now, approval_of("p1", "Reply.", now + 60, token_hash=kept))
        old, _ = store.open_approval(
            now, approval_of("p2", "Reply.", now + 60, token_hash=token_hash("t"))
        )
    fits = {
        (name, token, channel): token_fits(approval, token, channel)
        for name, approval in (("new", new), ("old", old))
        for token in (card, page_token(card), "t")
        for channel in (Channel.APP, Channel.PAGE, Channel.CONSOLE, None)
    }
    assert {k for k, v in fits.items() if v} == {
        ("new", card, Channel.APP),
        ("new", page_token(card), Channel.PAGE),
        ("old", "t", Channel.PAGE),
    }
