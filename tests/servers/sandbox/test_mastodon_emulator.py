"""The Mastodon emulator on the sandbox's own clock: an Idempotency-Key is remembered per
account for one hour, as Mastodon's Redis key (idempotency:status:<account>:<key>) is, so a
write resent within the hour is answered with the first status and one resent later posts
again."""

from __future__ import annotations

import httpx
import pytest

from gwanjong_sandbox.app import SandboxApp
from gwanjong_sandbox.mastodon.world import HUMAN_TOKEN, TOKEN
from gwanjong_sandbox.state import SandboxState
from tests.fakes.clock import FakeClock

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
