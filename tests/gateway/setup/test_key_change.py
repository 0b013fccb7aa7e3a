"""A key saved while a write waits for a person: the approval names the account it will be
sent as, so the account the new key signs in as is asked before that write is sent."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult

from gwanjong_shared.contract.errors import ErrorKind
from tests.fakes.clock import FakeClock
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.gateway.helpers import drafted, gateway_of
from tests.gateway.rows import history
from tests.gateway.strike.test_strike import strike
from tests.mcp import call
from tests.security.test_secret_page import post

pytestmark = pytest.mark.anyio


async def test_a_key_saved_while_an_approval_waits_is_not_sent_as_its_new_account(
    forum: FakePlatform, tmp_path: Path
) -> None:
    """The person approves "Sent as: gwanjong_bot"; meanwhile a key of another account was
    saved on the credential page, and the check after the save got no answer. The write
    is not sent as the other account."""
    gateway = fake_gateway(tmp_path, forum, writes="confirm")
    shown: list[str] = []
    saved: list[Any] = []

    async def on_page(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        forum.profile = replace(forum.profile, me="someone_else")  # the new key's account
        forum.fail("capabilities", ErrorKind.INVALID_INPUT)  # the check after the save
        async with httpx.AsyncClient(timeout=60) as http:
            done = await post(http, params.url, {"DEVTO_API_KEY": "another-accounts-key"})
        assert done.status_code == 200, done.text
        return ElicitResult(action="accept")

    async def on_dialog(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        shown.append(message)
        async with Client(gateway, mode="legacy", elicitation_handler=on_page) as other:
            saved.append(await call(other, "setup", action="save", platform="devto"))
        return ElicitResult(action="accept", content={"decision": "approve"})

    async with Client(gateway, mode="legacy", elicitation_handler=on_dialog) as client:
        oid = await drafted(client)
        result = await strike(client, oid)
    assert "Sent as: gwanjong_bot" in shown[0]
    assert saved[0]["saved"] == ["DEVTO_API_KEY"] and saved[0]["check"]["devto"]["ok"] is False
    assert result["status"] == "refused" and "the account changed" in result["reason"], result
    assert forum.writes == []


@pytest.mark.parametrize(
    ("own_search", "me"),
    [(False, "gwanjong_bot"), (True, "gwanjong_bot"), (True, "")],
    ids=["search", "own-search", "own-search-no-account"],
)
async def test_a_key_saved_while_a_write_is_unsure_never_sends_it_again(
    forum: FakePlatform, tmp_path: Path, own_search: bool, me: str
) -> None:
    """A post landed but its answer was lost; then a key of another account is saved. The
    read-back looks for the account the post went out as (the record keeps it), so the
    post is found, not counted absent and sent again as the new account. Where search
    finds only the signed-in account's posts, absent proves nothing: a person settles it,
    as when the platform named no account at the claim (whom it went out as is unknown)."""
    clock = FakeClock(now=500.0, wall=1_800_000_000.0)
    gw, mcp = gateway_of(
        tmp_path, forum, clock=clock, wall=clock.time, tables={"safety": {"settle_window_s": 120}}
    )
    forum.lag, forum.own_search = True, own_search  # it lands but does not show in reads yet
    forum.profile = replace(forum.profile, me=me)  # "": the platform names no account
    forum.land("write_post", ErrorKind.TIMEOUT)  # ...and its answer is lost
    async with Client(mcp) as client:
        oid = await drafted(client)
        first = await strike(client, oid)
        assert first["error"].startswith("timeout"), first
        forum.profile = replace(forum.profile, me="someone_else")  # the new key's account
        await gw.upstreams.reload_env("devto", {})  # as setup(save) does
        forum.show_late()
        answers = []
        for _ in range(8):  # past the settle window, read back again and again
            clock.now += 30
            clock.wall += 30
            answers.append((await strike(client, oid))["status"])
    [sent] = forum.written("write_post")  # once, as the account it went out as
    assert forum.posts[sent.data["id"]].author == me, answers
    assert set(answers) == {"duplicate"}, answers
    [row] = [r for r in history(tmp_path) if r.action == "post"]
    assert row.status == ("unknown" if own_search else "posted") and row.needs_person == own_search
