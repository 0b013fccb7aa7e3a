"""A write the platform allows only once a person approved it (`approved`: a Dev.to
article, an X like) is never sent without one, whatever `writes` says: live asks as confirm
does, dry-run still writes nothing. Over MCP, the gateway over the fake platform."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from mcp.types import ElicitResult

from gwanjong_shared.contract import ActionRule
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import FORUM
from tests.gateway.helpers import drafted
from tests.mcp import call

pytestmark = pytest.mark.anyio

#: the forum, where each post and each like needs a person's authorisation (dev.to's
#: llms.txt for publishing, X's "likes must be directly user-initiated")
ASKS = dataclasses.replace(
    FORUM,
    rules={
        **FORUM.rules,
        "write_post": ActionRule(
            allowed="approved", reason="The account holder authorises each post."
        ),
        "upvote": ActionRule(allowed="approved", reason="Likes must be directly user-initiated."),
    },
)


def person(decision: str) -> Any:
    async def answer(message: str, response_type: Any, params: Any, ctx: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"decision": decision})

    return answer


async def strikes(client: Client[Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    oid = await drafted(client)
    post = await call(
        client, "strike", opportunity_id=oid, action="post", content="Notes.", title="Notes"
    )
    like = await call(client, "strike", opportunity_id=oid, action="upvote", content="")
    return post, like


async def test_live_mode_asks_a_person_before_an_approved_write(tmp_path: Path, mode: str) -> None:
    fake = FakePlatform(ASKS)
    live = fake_gateway(tmp_path / "unasked", fake, writes="live")
    async with Client(live, mode=mode) as client:  # no dialog: nobody has answered
        draft = await call(client, "draft", opportunity_id=await drafted(client))
        assert draft["strike"]["actions"]["post"]["allowed"] == "approved", draft["strike"]
        post, like = await strikes(client)
    assert post["status"] == like["status"] == "pending_approval", (post, like)
    assert fake.asked("write_post", "upvote") == [] and fake.writes == []

    fake = FakePlatform(ASKS)
    async with Client(
        fake_gateway(tmp_path / "no", fake, writes="live", tables={"review": {"min_read_s": 0}}),
        mode=mode,
        elicitation_handler=person("decline"),
    ) as client:
        post, like = await strikes(client)
    assert post["status"] == like["status"] == "declined" and fake.writes == [], (post, like)

    fake = FakePlatform(ASKS)
    yes = fake_gateway(tmp_path / "yes", fake, writes="live")
    async with Client(yes, mode=mode, elicitation_handler=person("approve")) as client:
        post, like = await strikes(client)
    assert post["status"] == like["status"] == "posted", (post, like)
    assert [w.action for w in fake.writes] == ["write_post", "upvote"]


async def test_dry_run_still_writes_nothing_and_asks_no_one(tmp_path: Path) -> None:
    fake = FakePlatform(ASKS)
    asked: list[str] = []

    async def answer(message: str, response_type: Any, params: Any, ctx: Any) -> ElicitResult:
        asked.append(message)
        return ElicitResult(action="accept", content={"decision": "approve"})

    dry = fake_gateway(tmp_path, fake, writes="dry-run")
    async with Client(dry, elicitation_handler=answer) as client:
        post, like = await strikes(client)
    assert post["status"] == like["status"] == "dry_run" and not asked, (post, like)
    assert fake.writes == []


async def test_a_targets_own_verdict_never_lifts_the_persons_approval(tmp_path: Path) -> None:
    """A server's per-target check answering `auto` (the kit's `rule_for_target`) leaves an
    `approved` action approved: the platform's rule about a person still holds."""
    fake = FakePlatform(ASKS)
    post_id = fake.add_post("p1", "A post", "Some text.", author="alice")
    fake.verdicts[post_id] = ActionRule(allowed="auto", reason="This post is open to programs.")
    async with Client(fake.server()) as client:
        check = await call(client, "validate", action="upvote", body="", post_id=post_id)
    assert check["allowed"] == "approved" and check["ok"] is True, check
