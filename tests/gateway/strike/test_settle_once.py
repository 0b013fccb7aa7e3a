"""Settling is claimed once (two gateways on one record, a SQLite file or, in the postgres
tier, one PostgreSQL; the fake platform, a fake clock): a read-back first takes the row's lease, so of two replicas only one reads
back and settles, and only it logs "settled"; a lease left by a replica that died frees
itself once `lease_s` has passed on the injected clock; a move someone else made first is
not logged as this process's."""

from __future__ import annotations

import logging
from pathlib import Path

import anyio
import pytest

from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.gateway.rows import strike_row
from tests.gateway.strike.settle_race import (
    close,
    landed_unsure,
    race,
    reached,
    replicas,
    settled_lines,
)

pytestmark = pytest.mark.anyio


async def test_two_replicas_on_one_record_read_back_and_settle_once(
    tmp_path: Path,
    store_url: str,
    caplog: pytest.LogCaptureFixture,
    fake: FakePlatform,
    clock: FakeClock,
) -> None:
    pair = replicas(tmp_path, fake, clock, store_url)
    try:
        row = await landed_unsure(fake, pair[0], clock)
        counts = await race(fake, pair, caplog)
        assert fake.calls.count("get_comments") == 1  # one read-back, not one per replica
        assert counts == [1, 0]
        assert len(settled_lines(caplog, row)) == 1
        settled = await pair[1].gateway.records.run(StrikeStore.get, row.id)
        assert settled is not None and settled.status == StrikeStatus.POSTED
        assert settled.settling_by == ""  # the lease ended with the read-back
        found = fake.comments[row.target][-1]
        assert found.url and settled.result_url == found.url  # the URL the read-back found
    finally:
        await close(pair)


async def test_a_dead_replicas_lease_frees_itself_after_lease_s(
    tmp_path: Path, store_url: str, fake: FakePlatform, clock: FakeClock
) -> None:
    pair = replicas(tmp_path, fake, clock, store_url)
    try:
        row = await landed_unsure(fake, pair[0], clock)
        settler = pair[1].settler
        # The first replica took the row and died mid read-back: its lease stays behind.
        taken = await pair[0].gateway.records.run(
            StrikeStore.take_settling, row.id, "dead:1", clock.time(), settler.lease_s
        )
        assert taken is not None and taken.settling_by == "dead:1"
        clock.advance(settler.lease_s - 1)
        assert (await settler.settle(row)).status == StrikeStatus.UNKNOWN
        assert "get_comments" not in fake.calls  # held: not read back this round
        clock.advance(2)
        assert (await settler.settle(row)).status == StrikeStatus.POSTED
        assert fake.calls.count("get_comments") == 1
    finally:
        await close(pair)


async def test_a_lease_set_by_a_clock_far_ahead_does_not_hold_the_row(
    tmp_path: Path, fake: FakePlatform, clock: FakeClock
) -> None:
    pair = replicas(tmp_path, fake, clock)
    try:
        row = await landed_unsure(fake, pair[0], clock)
        settler = pair[1].settler
        ahead = clock.time() + 10 * settler.lease_s  # a replica whose wall clock ran ahead
        await pair[0].gateway.records.run(
            StrikeStore.take_settling, row.id, "ahead:1", ahead, settler.lease_s
        )
        assert (await settler.settle(row)).status == StrikeStatus.POSTED
    finally:
        await close(pair)


async def test_an_earlier_post_of_ours_with_the_same_title_is_not_this_write(
    tmp_path: Path, fake: FakePlatform, clock: FakeClock
) -> None:
    """A recurring title: an unsure new post that never landed was read back as our earlier
    post with that title, and settled `posted` with its link (the new one never went out).
    With only an earlier one showing, neither found nor absent: a person tells."""
    title = "Weekly thread: what are you building?"
    fake.add_post("weekly", title, "Share what you are building.", author=fake.profile.me)
    pair = replicas(tmp_path, fake, clock)
    new = {"action": "post", "target": "", "title": title, "account": fake.profile.me}
    try:
        unsure = await pair[0].gateway.records.run(
            strike_row, status=StrikeStatus.UNKNOWN, now=clock.time(), **new
        )
        # past the settle window, still never counted absent: a platform clock far behind
        # ours would show this very write as an earlier one
        settled = unsure
        for _ in range(5):
            settled = await pair[0].settler.settle(settled)
            clock.advance(60)
        assert "search" in fake.calls
        assert settled.status == StrikeStatus.UNKNOWN and settled.result_url == "", settled
        assert settled.readbacks == 0, settled
    finally:
        await close(pair)


async def test_a_move_made_elsewhere_first_is_not_logged_here(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, fake: FakePlatform, clock: FakeClock
) -> None:
    caplog.set_level(logging.INFO, logger="gwanjong_gateway.strike.settle")
    pair = replicas(tmp_path, fake, clock)
    try:
        row = await landed_unsure(fake, pair[0], clock)
        # A person resolves it (another process) while this read-back is at the platform.
        fake.hang("get_comments")
        settler = pair[1].settler
        async with anyio.create_task_group() as tg:
            tg.start_soon(settler.settle_due)
            await reached(fake, "get_comments")
            await pair[0].gateway.records.run(
                StrikeStore.settle, row.id, StrikeStatus.FAILED, reason="a person", now=clock.time()
            )
            fake.release()
        assert settler.moved == 0 and settled_lines(caplog, row) == []
        final = await pair[0].gateway.records.run(StrikeStore.get, row.id)
        assert final is not None and final.status == StrikeStatus.FAILED
    finally:
        await close(pair)
