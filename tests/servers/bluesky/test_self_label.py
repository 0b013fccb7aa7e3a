"""Bluesky's disclosure is the account's `bot` self-label (the app's Automation label):
writes go out only from an account that carries it. Through atproto's AsyncClient over
real HTTP to the sandbox, whose own account carries it and whose PERSON account does not."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastmcp import Client

from gwanjong_sandbox.bluesky import PERSON_HANDLE, PERSON_PASSWORD
from gwanjong_sandbox.control import SandboxControl
from tests.mcp import call, error_of
from tests.servers.bluesky.test_bluesky import SPEC, counts

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py

PERSON = {"BLUESKY_HANDLE": PERSON_HANDLE, "BLUESKY_APP_PASSWORD": PERSON_PASSWORD}
PROFILE = "app.bsky.actor.profile"


async def label_as_bot(sandbox: SandboxControl) -> None:
    """What the person does in the app (Settings > Account > Automation label): their own
    session puts the profile record back with the `bot` self-label."""
    async with httpx.AsyncClient(base_url=f"{sandbox.url}/xrpc/") as web:
        login = await web.post(
            "com.atproto.server.createSession",
            json={"identifier": PERSON_HANDLE, "password": PERSON_PASSWORD},
        )
        did, auth = login.json()["did"], {"Authorization": f"Bearer {login.json()['accessJwt']}"}
        query = {"repo": did, "collection": PROFILE, "rkey": "self"}
        record: dict[str, Any] = (await web.get("com.atproto.repo.getRecord", params=query)).json()
        profile = {
            **record["value"],
            "labels": {"$type": "com.atproto.label.defs#selfLabels", "values": [{"val": "bot"}]},
        }
        put = await web.post(
            "com.atproto.repo.putRecord",
            json={**query, "record": profile, "swapRecord": record["cid"]},
            headers=auth,
        )
        assert put.status_code == 200, put.text
        shown = await web.get("app.bsky.actor.getProfile", params={"actor": did}, headers=auth)
        assert [(x["src"], x["val"]) for x in shown.json()["labels"]] == [(did, "bot")]


async def test_writes_are_refused_without_the_bot_self_label(sandbox: SandboxControl) -> None:
    """Bluesky discloses on the account, so no footer is added: without the label a write
    would go out with no disclosure at all. It is refused with how to add it, and the
    server never changes the person's profile itself."""
    summons = sandbox.ids("bluesky")["summons-me"]
    async with Client(SPEC.build(sandbox.url, **PERSON)) as client:
        caps = await call(client, "capabilities")
        check = await call(client, "validate", action="write_post", body="Hello.")
        refused = [
            await error_of(client, "write_post", title="", body="Hello from a script."),
            await error_of(client, "write_comment", post_id=summons, body="Hi."),
            await error_of(client, "upvote", post_id=summons),
        ]
    for text in refused:
        assert text.startswith("not_supported: ") and "`bot` self-label" in text, text
        assert "Settings > Account > Automation label" in text, text
    assert check["allowed"] == "never" and not check["ok"]
    assert any("Automation label" in p for p in check["problems"]), check
    assert {r["allowed"] for r in caps["actions"].values()} == {"never"}, caps["actions"]
    assert sandbox.writes("bluesky") == []
    assert "com.atproto.repo.putRecord" not in await counts(sandbox)


async def test_a_label_added_after_a_refusal_is_seen_at_once(sandbox: SandboxControl) -> None:
    async with Client(SPEC.build(sandbox.url, **PERSON)) as client:
        refused = await error_of(client, "write_post", title="", body="Too early.")
        await label_as_bot(sandbox)
        posted = await call(client, "write_post", title="", body="Labelled now.")
    assert refused.startswith("not_supported: "), refused
    assert posted["ok"] is True
    assert [w["data"]["text"] for w in sandbox.writes("bluesky")] == ["Labelled now."]


async def test_a_labelled_account_writes_and_reads_its_label_once(
    sandbox: SandboxControl,
) -> None:
    """The label is read once, not before every write (each would cost a request)."""
    summons = sandbox.ids("bluesky")["summons-me"]
    async with Client(SPEC.build(sandbox.url)) as client:
        caps = await call(client, "capabilities")
        check = await call(client, "validate", action="write_post", body="Hello.")
        await call(client, "write_post", title="", body="One.")
        await call(client, "write_post", title="", body="Two.")
        await call(client, "upvote", post_id=summons)
    assert caps["actions"]["write_post"]["allowed"] == "auto" and check["ok"], check
    assert len(sandbox.writes("bluesky")) == 3
    assert (await counts(sandbox))["com.atproto.repo.getRecord"] == 1


async def test_a_failed_read_of_the_label_says_nothing_was_written(
    sandbox: SandboxControl,
) -> None:
    """The label is read before the write: when that read fails, the write was never sent,
    and the answer says so (never that it may have been written)."""
    sandbox.fault("bluesky", match="/xrpc/com.atproto.repo.getRecord", status=502, count=9)
    async with Client(SPEC.build(sandbox.url)) as client:
        text = await error_of(client, "write_post", title="", body="Checked, not sent.")
    assert text.startswith("unavailable: ") and "nothing was sent" in text, text
    assert "may have been written" not in text, text
    assert sandbox.writes("bluesky") == []
