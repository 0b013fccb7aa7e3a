"""A person's decision kept (issue 34), at the desk every channel shares: an approval that
could only be refused waits as blocked (a pause, the author cool-down) and a refused try
leaves no row. Over the fake platform; the dialog's person by the operator's one name:
test_strike.py; a decline's reason reaching the model: tests/gateway/console/test_kept.py."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest

from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import ApprovalStatus, Channel, iso
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.gateway.strike.test_approvals import Desks, nobody, waiting
from tests.gateway.strike.test_strike_chain import context, wire

pytestmark = pytest.mark.anyio


def pause(tmp_path: Path, platform: str) -> None:
    with closing(StrikeStore(tmp_path / "gwanjong.db")) as store:
        for _ in range(3):
            store.record_failure(platform, "HTTP 500", pause_after=3)


async def test_a_paused_platform_blocks_an_approval_without_closing_it(
    desks: Desks, fake: FakePlatform, tmp_path: Path
) -> None:
    desk = desks.desk()
    approval_id = await waiting(desk, fake, "p1", "Waits out a pause.")
    pause(tmp_path, fake.profile.name)
    (approval,) = desks.approvals(pending=True)
    hold = await desk.approving.hold(approval)
    assert hold is not None and hold.until is None and "paused" in hold.why
    for _ in range(2):
        got = wire(await desk.decide(approval_id, "approve", Channel.CONSOLE, by="ops"))
        assert got["status"] == "refused" and "until writes resume" in got["reason"]
        assert got.get("record") is None
    assert desks.rows() == [] and fake.writes == []  # no row per refused try
    assert desks.approvals(pending=True)[0].status is ApprovalStatus.PENDING
    StrikeStore(tmp_path / "gwanjong.db").clear_pause(fake.profile.name)
    assert await desk.approving.hold(approval) is None
    got = wire(await desk.decide(approval_id, "approve", Channel.CONSOLE, by="ops"))
    assert got["status"] == "posted" and len(fake.writes) == 1


async def test_the_cool_down_holds_a_second_approval_to_one_author_until_it_ends(
    desks: Desks, fake: FakePlatform, clock: FakeClock
) -> None:
    desk = desks.desk()
    one = wire(await desk.strike(context(fake, "p1", "ann"), "comment", "One.", "", nobody))
    two = wire(await desk.strike(context(fake, "p2", "ann"), "comment", "Two.", "", nobody))
    first, second = one["approval"]["id"], two["approval"]["id"]
    assert wire(await desk.decide(first, "approve", Channel.TERMINAL, by="ops"))["status"] == (
        "posted"
    )
    sent_at = clock.time()
    (blocked,) = desks.approvals(pending=True)
    hold = await desk.approving.hold(blocked)
    assert hold is not None and "cool-down" in hold.why and hold.until == sent_at + 7 * 86400
    rows = len(desks.rows())
    got = wire(await desk.decide(second, "approve", Channel.TERMINAL, by="ops"))
    assert got["status"] == "refused" and iso(sent_at + 7 * 86400) in got["reason"]
    assert got["retry_after"] == 7 * 86400
    assert len(desks.rows()) == rows and len(fake.writes) == 1
    assert desks.approvals(pending=True)[0].id == second  # still waiting for its time
