"""Approvals between members of one tokens gateway over real HTTP: one member's approval,
its decision and the person's reason stay theirs when another member strikes the same
target later (the console, signed in with the member's token, decides as they would)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from gwanjong_gateway.console.app import Console
from gwanjong_gateway.console.routes import build_app
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import LINKS
from tests.gateway.approval_clients import pending
from tests.gateway.console.helpers import BASE, ORIGIN, PORT, csrf_of
from tests.gateway.helpers import drafted, resource
from tests.gateway.team_gateway import Team, team_gateway
from tests.mcp import call

pytestmark = pytest.mark.anyio
REASON = "Alice-private-reason: we do not reply to this author."
WORDS = " ".join(f"w{i}" for i in range(80))  # and " w80": two posts alike (Jaccard > 0.9)


@contextlib.asynccontextmanager
async def console_as(team: Team, user: str) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    """The console over the team's gateway, signed in with ``user``'s token: the browser
    and the session's CSRF token."""
    app = build_app(Console(team.gateway, port=PORT))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
        signed = await http.post("/signin", data={"token": team.tokens[user]}, headers=ORIGIN)
        assert signed.status_code == 303, signed.text
        yield http, csrf_of((await http.get("/approvals")).text)


async def test_a_members_declined_approval_is_not_told_to_another_member(
    tmp_path: Path,
) -> None:
    """Alice declines her own approval with a reason in the console; Bob's later strike on
    the same thread opens his own approval, and nothing he reads names her approval, its
    id or her words (the last decline on a target is told to the model that asked)."""
    platform = FakePlatform(LINKS)
    team_of = team_gateway(tmp_path, platform, writes="confirm")
    async with team_of as team, team.client("alice") as a, team.client("bob") as b:
        hers = (await pending(a)).structured_content["approval"]["id"]
        async with console_as(team, "alice") as (http, csrf):
            form = {"csrf": csrf, "decision": "decline", "reason": REASON}
            done = await http.post(f"/approvals/a{hers}", data=form, headers=ORIGIN)
            assert done.status_code == 200 and "declined" in done.text, done.text
        bobs = (await pending(b)).structured_content
        seen = [bobs, await call(b, "status"), await resource(b, "gwanjong://approvals")]
    shown = json.dumps(seen)
    assert bobs["approval"]["id"] != hers
    assert REASON not in shown and f"approval {hers}" not in shown, bobs["reason"]


async def test_approving_after_another_members_like_post_names_no_record_of_theirs(
    forum: FakePlatform, tmp_path: Path
) -> None:
    """Bob's post waits; Alice's post, alike but not the same text, is approved and sent
    first. Bob's approval then finds the post taken: he is told so, as a strike would tell
    him, never her record, its link or its reason (on the page, in status, in the record)."""
    like_posts = {"safety": {"author_cooldown_days": 7}}  # alike posts are one (the default)
    async with team_gateway(tmp_path, forum, writes="confirm", tables=like_posts) as team:
        made: dict[str, int] = {}
        async with team.client("bob") as b, team.client("alice") as a:
            for user, c, text in (("bob", b, WORDS), ("alice", a, WORDS + " w80")):
                oid = await drafted(c)
                args = {"action": "post", "content": text, "title": f"{user}'s"}
                answer = await call(c, "strike", opportunity_id=oid, **args)
                assert answer["status"] == "pending_approval", answer
                made[user] = answer["approval"]["id"]
            async with console_as(team, "alice") as (http, csrf):
                form = {"csrf": csrf, "decision": "approve"}
                sent = await http.post(f"/approvals/a{made['alice']}", data=form, headers=ORIGIN)
                assert sent.status_code == 200 and "posted" in sent.text, sent.text
            [hers] = await resource(a, "gwanjong://history")
            async with console_as(team, "bob") as (http, csrf):
                form = {"csrf": csrf, "decision": "approve"}
                taken = await http.post(f"/approvals/a{made['bob']}", data=form, headers=ORIGIN)
            seen = [taken.text, await call(b, "status"), await resource(b, "gwanjong://approvals")]
            seen.append(await resource(b, "gwanjong://history"))
    assert "another member" in taken.text, taken.text
    shown = json.dumps(seen)
    for theirs in (f"record {hers['record']}", f"/history/{hers['record']}", hers["url"]):
        assert theirs not in shown, theirs
    assert len(forum.writes) == 1


async def test_an_auditor_reads_decisions_but_not_another_members_waiting_write(
    tmp_path: Path,
) -> None:
    """Carol audits: she reads every decision, but a write still waiting for its person
    stays its member's (and the approvers'), over MCP as in the console."""
    platform = FakePlatform(LINKS)
    async with (
        team_gateway(tmp_path, platform, writes="confirm") as team,
        team.client("alice") as a,
        team.client("carol") as c,
    ):
        hers = (await pending(a)).structured_content["approval"]["id"]
        waiting = [await call(c, "status"), await resource(c, "gwanjong://approvals")]
        async with console_as(team, "alice") as (http, csrf):
            form = {"csrf": csrf, "decision": "decline", "reason": REASON}
            await http.post(f"/approvals/a{hers}", data=form, headers=ORIGIN)
        decided = await resource(c, "gwanjong://approvals")
    assert [w["approvals"] for w in waiting[:1]] == [[]], waiting[0]
    assert waiting[1]["pending"] == [], waiting[1]
    assert [d["id"] for d in decided["decided"]] == [hers], decided
