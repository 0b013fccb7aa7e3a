"""The Mastodon emulator on the sandbox's own clock: an Idempotency-Key is remembered per
account for one hour, as Mastodon's Redis key (idempotency:status:<account>:<key>) is, so a
write resent within the hour is answered with the first status and one resent later posts
again."""

from __future__ import annotations

import anyio
import httpx
import pytest

from gwanjong_sandbox.app import SandboxApp
from gwanjong_sandbox.mastodon.world import HUMAN_TOKEN, TOKEN
from gwanjong_sandbox.state import Fault, SandboxState
from tests.fakes.clock import FakeClock
from tests.mcp import until

pytestmark = pytest.mark.anyio


async def test_an_idempotency_key_is_one_accounts_for_one_hour() -> None:
    clock = FakeClock()
    state = SandboxState(clock=clock.time)
    app = httpx.ASGITransport(SandboxApp(state))
    async with httpx.AsyncClient(transport=app, base_url="http://sb") as client:

        async def post(token: str) -> str:
            answer = await client.post(
                "/api/v1/statuses",
                data={"status": "Once, please."},
                headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "k1"},
            )
            assert answer.status_code == 200, answer.text
            return str(answer.json()["id"])

        first = await post(TOKEN)
        clock.advance(3599)
        assert await post(TOKEN) == first  # within the hour: the first status again
        other = await post(HUMAN_TOKEN)  # the same key from another account: its own status
        clock.advance(2)
        later = await post(TOKEN)  # the key is forgotten: Mastodon posts it again
    assert other != first and later not in (first, other)
    assert [w.data["id"] for w in state.writes] == [first, other, later]


async def test_a_resend_while_the_first_is_still_at_work_posts_again() -> None:
    """Mastodon reads the key before its slow work (mentions, the insert) and stores it only
    after: a resend that arrives while the first is still being written (a client that timed
    out) is not known yet and posts a second status, as PostStatusService does."""
    state = SandboxState()
    state.faults.append(Fault("mastodon", kind="slow_write", seconds=0.5, method="POST"))
    app = SandboxApp(state)
    ids: list[str] = []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sb") as c:

        async def post() -> None:
            answer = await c.post(
                "/api/v1/statuses",
                data={"status": "Once, please."},
                headers={"Authorization": f"Bearer {TOKEN}", "Idempotency-Key": "k1"},
            )
            ids.append(str(answer.json()["id"]))

        async with anyio.create_task_group() as tg:
            tg.start_soon(post)  # held 0.5 s, then written
            await until(lambda: any(k.endswith(" held") for k in app.paths), seconds=5)
            await post()  # the resend, while the first is at work
        await post()  # after both: the key is known
    assert len(set(ids)) == 2 and ids[2] in ids[:2], ids
    assert len(state.writes) == 2


async def test_a_status_shows_in_its_hashtags_timeline() -> None:
    """Mastodon tags a status with the hashtags in its text (ProcessHashtagsService): a
    status posted through the API shows in #tag's timeline, as a read-back may look there."""
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(SandboxApp(SandboxState())), base_url="http://sb"
    ) as client:
        made = await client.post(
            "/api/v1/statuses",
            data={"status": "Tagged #FreshTag"},
            headers={"Authorization": f"Bearer {TOKEN}"},
        )
        timeline = await client.get("/api/v1/timelines/tag/freshtag")
    assert [s["id"] for s in timeline.json()] == [made.json()["id"]]
    assert made.json()["tags"][0]["name"] == "freshtag"
