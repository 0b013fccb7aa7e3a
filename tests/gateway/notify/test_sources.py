"""What a running gateway knows beside the record: a platform down longer than
`down_after_s` (told once a day), a platform's spend past `spend_share` of its cap."""

from __future__ import annotations

from typing import Any

import pytest

from gwanjong_gateway.config.away import NotifySection
from gwanjong_gateway.notify.events import EventKind
from gwanjong_gateway.notify.sources import GatewayEvents

pytestmark = pytest.mark.anyio

NOW = 1_800_000_000.0


class Clock:
    now = NOW

    def __call__(self) -> float:
        return self.now


async def test_a_platform_down_longer_than_the_threshold_and_spend_near_its_cap() -> None:
    clock = Clock()
    health: dict[str, dict[str, Any]] = {
        "reddit": {"health": "down", "reason": "x"},
        "bluesky": {"health": "up", "platform": {"state": "unreachable"}},
        "devto": {"health": "up", "platform": {"state": "reachable"}},
    }
    spent = {"twitter": 4_000_000, "devto": 1_000_000}
    days: list[float] = []

    def spent_since(platform: str, since: float) -> int:
        days.append(since)
        return spent[platform]

    events = GatewayEvents(
        NotifySection(down_after_s=600, spend_share=0.8),
        lambda: health,
        {"twitter": 5_000_000, "devto": 5_000_000},
        spent_since,
        clock,
    )
    first = await events()
    assert [(e.kind, e.platform) for e in first] == [(EventKind.SPEND_NEAR_CAP, "twitter")]
    assert days[0] <= NOW < days[0] + 86400  # today's spend, from midnight UTC
    clock.now = NOW + 300
    health["bluesky"] = {"health": "up", "platform": {"state": "reachable"}}  # back up
    assert [e.kind for e in await events()] == [EventKind.SPEND_NEAR_CAP]
    clock.now = NOW + 601
    down = [e for e in await events() if e.kind is EventKind.PLATFORM_DOWN]
    assert [(e.platform, e.at) for e in down] == [("reddit", NOW)]
    clock.now = NOW + 900
    again = [e for e in await events() if e.kind is EventKind.PLATFORM_DOWN]
    assert [e.notice_key for e in again] == [down[0].notice_key]  # the same key: told once
