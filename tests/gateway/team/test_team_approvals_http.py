"""Approvals between members of one tokens gateway over real HTTP: one member's approval,
its decision and the person's reason stay theirs when another member strikes the same
target later (the console, signed in with the member's token, decides as they would)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from gwanjong_gateway.console.app import Console
from gwanjong_gateway.console.routes import build_app
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import LINKS
from tests.gateway.approval_clients import pending
from tests.gateway.console.helpers import BASE, ORIGIN, PORT, csrf_of
from tests.gateway.helpers import resource
from tests.gateway.team_gateway import team_gateway
from tests.mcp import call

pytestmark = pytest.mark.anyio
REASON = "Alice-private-reason: we do not reply to this author."


async def test_a_members_declined_approval_is_not_told_to_another_member(
    tmp_path: Path,
) -> None:
    """Alice declines her own approval with a reason in the console; Bob's later strike on
    the same thread opens his own approval, and nothing he reads names her approval, its
    id or her words (the last decline on a target is told to the model that asked)."""
    platform = FakePlatform(LINKS)
    async with team_gateway(tmp_path, platform, writes="confirm") as team:
        console = Console(team.gateway, port=PORT)
        transport = httpx.ASGITransport(app=build_app(console))
        async with team.client("alice") as a, team.client("bob") as b:
            hers = (await pending(a)).structured_content["approval"]["id"]
            async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
                signed = await http.post(
                    "/signin", data={"token": team.tokens["alice"]}, headers=ORIGIN
                )
                assert signed.status_code == 303, signed.text
                csrf = csrf_of((await http.get("/approvals")).text)
                form = {"csrf": csrf, "decision": "decline", "reason": REASON}
                done = await http.post(f"/approvals/a{hers}", data=form, headers=ORIGIN)
                assert done.status_code == 200 and "declined" in done.text, done.text
            bobs = (await pending(b)).structured_content
            seen = [bobs, await call(b, "status"), await resource(b, "gwanjong://approvals")]
    shown = json.dumps(seen)
    assert bobs["approval"]["id"] != hers
    assert REASON not in shown and f"approval {hers}" not in shown, bobs["reason"]
