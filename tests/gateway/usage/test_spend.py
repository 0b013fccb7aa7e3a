"""What paid API calls cost, and a daily budget (`[limits.<platform>] daily_usd`), against
the fake platform that charges per call (tests/fakes/profiles.py `PAID`): the strike desk
and the Upstreams with the real spend gate on a real ledger: usage.db, or (in the postgres
tier) one `usage_spend` table that replicas reserve in under one advisory lock per platform."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from gwanjong_gateway.config import ConfigError, parse
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_gateway.strike.desk import StrikeDesk
from gwanjong_gateway.usage import spend
from gwanjong_gateway.usage.log import open_usage
from gwanjong_gateway.usage.prices import usd
from gwanjong_gateway.usage.spend_ledger import Over, SpendLedger, Where
from gwanjong_shared.contract.errors import ErrorKind
from gwanjong_twitter.profile import PROFILE as X_PROFILE
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import PAID
from tests.gateway.helpers import config_text, exit_code, in_threads
from tests.gateway.strike.test_strike_chain import Says, context
from tests.mcp import call

pytestmark = pytest.mark.anyio
NAME = PAID.name
#: 21:30 UTC: the budget's day resets in 2 h 30 min
NOW = datetime(2026, 12, 2, 21, 30, tzinfo=UTC).timestamp()
accept = Says("approve")


#: enough daily writes that only the money budget stops a strike
PLATFORM = {"min_interval_s": 0, "daily": {"comment": 500, "post": 500}}


def budget(usd: float) -> dict[str, Any]:
    return {"limits": {NAME: {"daily_usd": usd}}}


@dataclass
class Bench:
    desk: StrikeDesk
    upstreams: Upstreams
    fake: FakePlatform
    ledger: SpendLedger


@pytest.fixture
def fake() -> FakePlatform:
    return FakePlatform(PAID)


@asynccontextmanager
async def bench_for(
    tmp_path: Path, fake: FakePlatform, tables: dict[str, Any] | None = None, store_url: str = ""
) -> AsyncIterator[Bench]:
    """One gateway's desk and spend gate; ``store_url``: its record and ledger on PostgreSQL."""
    tables = {**(tables or {}), **({"store": {"url": store_url}} if store_url else {})}
    config = parse(config_text(tmp_path, [NAME], tables=tables, platform=PLATFORM))
    upstreams = Upstreams(config, environ={}, transports={NAME: fake.server()})
    gate = spend.attach(config, upstreams, {}, lambda: NOW)
    records = Records.for_config(config, {})
    try:
        yield Bench(
            StrikeDesk(config, upstreams, records, clock=lambda: NOW), upstreams, fake, gate.ledger
        )
    finally:
        with anyio.CancelScope(shield=True):
            await upstreams.close_all()
        records.close()
        gate.close()


def where(tmp_path: Path, store_url: str) -> Where:
    """The spend ledger of each engine: usage.db in the state dir, or the database."""
    return Where(url=store_url) if store_url else Where(tmp_path / "usage.db")


async def test_fifty_concurrent_strikes_from_two_replicas_never_pass_the_budget(
    tmp_path: Path, fake: FakePlatform, store_url: str, record: StrikeStore
) -> None:
    # $0.15 a day at $0.015 a comment: ten fit, to the micro-dollar, though two gateways
    # (replicas: their own servers, record connections and ledgers) reserve on one record.
    async with (
        bench_for(tmp_path, fake, budget(0.15), store_url) as bench,
        bench_for(tmp_path, fake, budget(0.15), store_url) as other,
    ):
        contexts = [context(fake, f"k{n}", f"author{n}") for n in range(50)]  # no cool-down
        results: list[dict[str, Any]] = []

        async def one(n: int) -> None:
            desk = (bench, other)[n % 2].desk
            got = await desk.strike(contexts[n], "comment", f"Reply number {n}.", "", accept)
            results.append(got.model_dump(mode="json"))

        async with anyio.create_task_group() as tg:
            for n in range(50):
                tg.start_soon(one, n)

        posted = [r for r in results if r["status"] == "posted"]
        refused = [r for r in results if r["status"] == "refused"]
        assert len(posted) == 10 and len(refused) == 40, results
        assert len(fake.written("write_comment")) == 10  # the platform saw ten writes only
        assert bench.ledger.spent(NAME, 0) == 150_000  # $0.15: not a micro-dollar more
        for r in refused:
            reason = r["reason"]
            assert "Daily spend budget reached on devto: $0.15 spent today" in reason, reason
            assert "this write_comment may cost $0.015" in reason
            assert "the budget is $0.15 ([limits.devto] daily_usd" in reason
            assert "resets at 00:00 UTC (2026-12-03), in 2 h 30 min" in reason
            assert r["retry_after"] == 9000  # seconds to midnight UTC on the injected clock
        # A refusal is a `refused` row, never a failed write: writes are not paused.
        statuses = sorted(str(row.status) for row in record.history(limit=100))
        assert statuses == sorted(
            [str(StrikeStatus.POSTED)] * 10 + [str(StrikeStatus.REFUSED)] * 40
        )
        assert await bench.desk.claims.paused(NAME) == ""


async def test_a_write_with_a_link_costs_more_and_the_day_after_starts_afresh(
    tmp_path: Path, fake: FakePlatform
) -> None:
    async with bench_for(tmp_path, fake, budget(0.2)) as bench:
        got = await bench.desk.strike(
            context(fake, "a", "ann"), "comment", "See example.com/x", "", accept
        )
        assert got.model_dump()["status"] == "posted"
        assert bench.ledger.spent(NAME, 0) == 200_000  # "with URL": $0.20
        got = await bench.desk.strike(
            context(fake, "b", "bob"), "comment", "Plain words.", "", accept
        )
        wire = got.model_dump(mode="json")
        assert wire["status"] == "refused" and "$0.20 spent today" in wire["reason"]
        assert "may cost $0.015" in wire["reason"]
        assert len(fake.written("write_comment")) == 1
        # Yesterday's spend does not count today.
        tomorrow = NOW + 9000  # the next midnight UTC: today's $0.20 is yesterday's there
        got_row = bench.ledger.reserve(NAME, "write_comment", "", 15_000, 200_000, tomorrow)
        assert isinstance(got_row, int)


async def test_a_read_reserves_its_most_and_costs_what_it_returned(
    tmp_path: Path, fake: FakePlatform
) -> None:
    async with bench_for(tmp_path, fake, budget(0.1)) as bench:
        before = len(fake.visible())
        # 20 posts at most: $0.10 reserved, the whole budget.
        outcome = await bench.upstreams.call(NAME, "trending", {"limit": 20})
        assert outcome.ok
        returned = len(json.loads(outcome.result.content[0].text)["posts"])  # type: ignore[union-attr]
        assert 0 < returned <= min(before, 20)
        assert bench.ledger.spent(NAME, 0) == returned * 5_000  # settled to what came back
        # Another 20 at most would pass it: refused before the call.
        searches = fake.asked().count("search")
        refused = await bench.upstreams.call(NAME, "search", {"query": "x", "limit": 20})
        assert not refused.ok and refused.kind is ErrorKind.RATE_LIMITED
        assert refused.retry_after == 9000
        assert f"{usd(returned * 5_000)} spent today" in refused.message
        assert "this search may cost $0.10, the budget is $0.10" in refused.message
        assert fake.asked().count("search") == searches  # nothing was sent
        # Free calls are never refused.
        assert (await bench.upstreams.call(NAME, "capabilities", {})).ok


async def test_gateway_toml_prices_override_the_servers(tmp_path: Path, fake: FakePlatform) -> None:
    async with bench_for(tmp_path, fake, {"prices": {NAME: {"write": 0.5}}}) as bench:
        got = await bench.desk.strike(context(fake, "a"), "comment", "Hello.", "", accept)
        assert got.model_dump()["status"] == "posted"
        assert bench.ledger.spent(NAME, 0) == 500_000  # no budget: counted all the same


def test_two_ledgers_on_one_record_never_pass_the_budget(tmp_path: Path, store_url: str) -> None:
    # Two connections (two processes' worth) reserving at once: BEGIN IMMEDIATE (SQLite) or
    # the platform's advisory lock (PostgreSQL) serialises.
    ledgers = [SpendLedger(where(tmp_path, store_url), lambda: NOW) for _ in range(2)]
    got: list[int | Over] = []
    lock = threading.Lock()

    def work(n: int) -> None:
        for _ in range(25):
            r = ledgers[n].reserve(NAME, "write_post", "", 15_000, 150_000, NOW - 3600)
            with lock:
                got.append(r)

    in_threads(work, (0,), (1,))
    assert sum(isinstance(r, int) for r in got) == 10
    assert {r.spent for r in got if isinstance(r, Over)} == {150_000}
    assert ledgers[0].spent(NAME, 0) == 150_000
    for ledger in ledgers:
        ledger.close()


async def test_status_and_gwanjong_usage_show_the_spend_per_day(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakePlatform(PAID)
    limits = {"limits": {NAME: {"daily_usd": 5}}}
    platform = {"min_interval_s": 0}
    mcp = fake_gateway(tmp_path, fake, tables=limits, platform=platform)
    async with Client(mcp) as client:
        await call(client, "scout", topic="rust")
        status = await call(client, "status")
    text = config_text(tmp_path, [NAME], tables=limits, platform=platform)
    usage = open_usage(parse(text))
    report = usage.report()
    usage.close()
    (day,) = report["spend"]["days"]
    assert day["platform"] == NAME and day["micros"] > 0 and day["micros"] % 5_000 == 0
    assert report["spend"]["daily_budget"] == {NAME: {"usd": "$5.00", "micros": 5_000_000}}
    assert any(
        line.startswith(f"{NAME} spend: {day['usd']} today (UTC) of $5.00 a day")
        for line in status["usage_7d"]
    ), status["usage_7d"]

    cfg = tmp_path / "g.toml"
    cfg.write_text(text, encoding="utf-8")
    exit_code(["usage", "--config", str(cfg)])
    text = capsys.readouterr().out
    rows = [line.split() for line in text.splitlines()]
    assert [day["day"], NAME, day["usd"], str(day["calls"]), "$5.00"] in rows, text
    assert all(len(line) <= 80 for line in text.splitlines()), text


def test_a_budget_or_a_price_needs_a_known_platform_and_exact_dollars(tmp_path: Path) -> None:
    for tables, error in (
        ({"limits": {"devtoo": {"daily_usd": 5}}}, r"limits\.devtoo: no such platform"),
        ({"prices": {NAME: {"read": 0.0000001}}}, r"prices\.devto\.read: .*6 decimal places"),
        ({"limits": {NAME: {"daily_usd": -1}}}, r"daily_usd: .*greater than or equal to 0"),
    ):
        with pytest.raises(ConfigError, match=error):
            parse(config_text(tmp_path, [NAME], tables=tables, platform=PLATFORM))


def test_the_x_server_says_what_it_charges_and_where_it_read_it() -> None:
    prices = X_PROFILE.prices
    assert prices is not None
    assert (prices.read, prices.write, prices.write_with_url) == (5_000, 15_000, 200_000)
    assert prices.source.startswith("https://docs.x.com/") and prices.as_of


@contextmanager
def mid_reservation(tmp_path: Path, store_url: str) -> Iterator[None]:
    """Another process mid-reservation: its lock taken, its $0.14 not committed yet."""
    if not store_url:
        with closing(sqlite3.connect(tmp_path / "usage.db", isolation_level=None)) as other:
            other.execute("BEGIN IMMEDIATE")
            other.execute(
                "INSERT INTO spend (at, platform, tool, micros) VALUES (?, ?, 'write_post', 140000)",
                (NOW, NAME),
            )
            yield
            other.execute("COMMIT")
        return
    import psycopg

    with psycopg.connect(store_url, autocommit=True) as other, other.transaction():
        other.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"gwanjong-spend:{NAME}",))
        other.execute(
            "INSERT INTO usage_spend (at, platform, tool, micros) "
            "VALUES (%s, %s, 'write_post', 140000)",
            (NOW, NAME),
        )
        yield


def test_a_reservation_waits_for_another_processes_and_counts_it(
    tmp_path: Path, store_url: str
) -> None:
    # Ours must wait for the other reservation and count it, not read the day before it
    # and pass the budget.
    ledger = SpendLedger(where(tmp_path, store_url), lambda: NOW)
    ledger.spent(NAME, 0)  # the file (or database) and its table exist
    got: list[int | Over] = []
    with mid_reservation(tmp_path, store_url):
        worker = threading.Thread(
            target=lambda: got.append(
                ledger.reserve(NAME, "write_post", "", 15_000, 150_000, NOW - 3600)
            )
        )
        worker.start()
        worker.join(timeout=0.3)  # it is waiting for the other's lock (no bound on the test)
    worker.join(timeout=60)
    assert got == [Over(spent=140_000, budget=150_000)]
    assert ledger.spent(NAME, 0) == 140_000
    ledger.close()


async def test_a_ledger_that_cannot_be_opened_refuses_budgeted_calls_only(
    tmp_path: Path, fake: FakePlatform
) -> None:
    (tmp_path / "usage.db").mkdir()  # not a database: the ledger cannot be opened
    async with bench_for(tmp_path, fake, budget(5)) as bench:
        refused = await bench.upstreams.call(NAME, "trending", {"limit": 5})
        assert not refused.ok and refused.kind is ErrorKind.UNAVAILABLE
        assert "the daily budget of devto cannot be kept: nothing was sent" in refused.message
        assert "trending" not in fake.asked()
    async with bench_for(tmp_path, fake) as bench:
        # No budget: the figures are missing, the call goes on.
        assert (await bench.upstreams.call(NAME, "trending", {"limit": 5})).ok
