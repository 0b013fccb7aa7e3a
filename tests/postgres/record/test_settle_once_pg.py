"""Settling is claimed once on PostgreSQL: two replicas (two gateways, each with its own
connection and settler) on one database race to read back one unsure write while the
first read-back is still at the (fake) platform: one read-back, one move, one "settled"
line, and the row keeps the URL found."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gwanjong_gateway.record.store import PostgresStrikeStore, StrikeStore
from gwanjong_gateway.rules.ledger import Strike, StrikeStatus
from tests.fakes.clock import FakeClock
from tests.gateway.strike.settle_race import (
    close,
    fake_forum,
    landed_unsure,
    race,
    replicas,
    settled_lines,
)
from tests.postgres.record.test_store_pg import NOW, WORKERS, together


@pytest.mark.anyio
async def test_two_replicas_on_one_postgresql_read_back_and_settle_once(
    tmp_path: Path, pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    fake, clock = fake_forum(), FakeClock()
    pair = replicas(tmp_path, fake, clock, store={"url": pg_url})
    try:
        row = await landed_unsure(fake, pair[0], clock)
        counts = await race(fake, pair, caplog)
        assert fake.calls.count("get_comments") == 1
        assert counts == [1, 0]
        assert len(settled_lines(caplog, row)) == 1
        settled = await pair[1].gateway.records.run(StrikeStore.get, row.id)
        assert settled is not None and settled.status == StrikeStatus.POSTED
        assert settled.settling_by == "" and settled.result_url == fake.comments[row.target][-1].url
    finally:
        await close(pair)


@pytest.mark.anyio
async def test_a_dead_replicas_lease_on_postgresql_frees_itself(
    tmp_path: Path, pg_url: str
) -> None:
    fake, clock = fake_forum(), FakeClock()
    pair = replicas(tmp_path, fake, clock, store={"url": pg_url})
    try:
        row = await landed_unsure(fake, pair[0], clock)
        settler = pair[1].settler
        taken = await pair[0].gateway.records.run(
            StrikeStore.take_settling, row.id, "dead:1", clock.time(), settler.lease_s
        )
        assert taken is not None and taken.settling_by == "dead:1"
        assert (await settler.settle(row)).status == StrikeStatus.UNKNOWN
        assert "get_comments" not in fake.calls
        clock.advance(settler.lease_s + 1)
        assert (await settler.settle(row)).status == StrikeStatus.POSTED
    finally:
        await close(pair)


def test_of_many_connections_taking_one_row_at_once_one_gets_it(pg_url: str) -> None:
    first = PostgresStrikeStore(pg_url)
    row = first.insert(
        intent_key="k",
        platform="devto",
        target="p1",
        action="comment",
        content_hash="h",
        content="hello there",
        mode="live",
        status=StrikeStatus.UNKNOWN,
        now=NOW,
    )
    first.close()

    def take(by: str) -> Callable[[PostgresStrikeStore], Strike | None]:
        return lambda store: store.take_settling(row.id, by, NOW, 60.0)

    jobs = [take(f"r{i}") for i in range(WORKERS)]
    taken = [t for t in together(pg_url, jobs) if t is not None]
    assert len(taken) == 1 and taken[0].settling_until == NOW + 60
