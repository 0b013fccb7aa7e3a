"""The daily spend budget with `[store] url`: two gateways (replicas) on one database
reserve in one `usage_spend` table, under one advisory lock per platform, so together they
never pass the budget; against the fake platform that charges per call."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest

from gwanjong_gateway.config import parse
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import PostgresStrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_gateway.strike.desk import StrikeDesk
from gwanjong_gateway.usage import spend
from gwanjong_gateway.usage.spend_ledger import Over, SpendLedger, Where
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import PAID
from tests.gateway.helpers import config_text
from tests.gateway.usage.test_spend import NAME, NOW, PLATFORM, accept, budget, context

pytestmark = pytest.mark.anyio


async def test_fifty_concurrent_strikes_from_two_replicas_never_pass_the_budget(
    tmp_path: Path, pg_url: str
) -> None:
    fake = FakePlatform(PAID)
    contexts = [context(fake, f"k{n}") for n in range(50)]
    config = parse(
        config_text(
            tmp_path, [NAME], tables=budget(0.15) | {"store": {"url": pg_url}}, platform=PLATFORM
        )
    )
    replicas: list[tuple[Upstreams, Records, spend.Spend, StrikeDesk]] = []
    for _ in range(2):  # two gateways: their own servers, record pools and ledgers
        upstreams = Upstreams(config, environ={}, transports={NAME: fake.server()})
        gate = spend.attach(config, upstreams, {}, lambda: NOW)
        records = Records.for_config(config, {})
        desk = StrikeDesk(config, upstreams, records, clock=lambda: NOW)
        replicas.append((upstreams, records, gate, desk))
    results: list[dict[str, Any]] = []
    try:

        async def one(n: int) -> None:
            desk = replicas[n % 2][3]
            got = await desk.strike(contexts[n], "comment", f"Reply number {n}.", "", accept)
            results.append(got.model_dump(mode="json"))

        async with anyio.create_task_group() as tg:
            for n in range(50):
                tg.start_soon(one, n)
    finally:
        for upstreams, records, gate, _ in replicas:
            with anyio.CancelScope(shield=True):
                await upstreams.close_all()
            records.close()
            gate.close()

    posted = [r for r in results if r["status"] == "posted"]
    refused = [r for r in results if r["status"] == "refused"]
    assert len(posted) == 10 and len(refused) == 40, results
    assert len(fake.written("write_comment")) == 10
    for r in refused:
        assert "Daily spend budget reached on devto: $0.15 spent today" in r["reason"], r
        assert "this write_comment may cost $0.015, the budget is $0.15" in r["reason"]
        assert r["retry_after"] == 9000
    ledger = SpendLedger(Where(url=pg_url), lambda: NOW)
    assert ledger.spent(NAME, 0) == 150_000
    ledger.close()
    store = PostgresStrikeStore(pg_url)
    try:
        statuses = sorted(str(row.status) for row in store.history(limit=100))
    finally:
        store.close()
    assert statuses == sorted([str(StrikeStatus.POSTED)] * 10 + [str(StrikeStatus.REFUSED)] * 40)


def test_a_reservation_waits_for_another_replicas_and_counts_it(pg_url: str) -> None:
    ledger = SpendLedger(Where(url=pg_url), lambda: NOW)
    ledger.spent(NAME, 0)  # migrated: usage_spend exists
    with psycopg.connect(pg_url, autocommit=True) as other:
        with other.transaction():
            # Another replica mid-reservation: its lock taken, its $0.14 not committed yet.
            other.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"gwanjong-spend:{NAME}",))
            other.execute(
                "INSERT INTO usage_spend (at, platform, tool, micros) "
                "VALUES (%s, %s, 'write_post', 140000)",
                (NOW, NAME),
            )
            got: list[int | Over] = []
            worker = threading.Thread(
                target=lambda: got.append(
                    ledger.reserve(NAME, "write_post", "", 15_000, 150_000, NOW - 3600)
                )
            )
            worker.start()
            worker.join(timeout=0.3)  # waiting for the other's lock (no bound on the test)
        worker.join(timeout=60)
    assert got == [Over(spent=140_000, budget=150_000)]
    assert ledger.spent(NAME, 0) == 140_000
    ledger.close()
