"""The strike record on a real PostgreSQL: migrations, claims that hold across many
connections at once, the per-platform lock, and errors as `unavailable` answers."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import psycopg
import pytest

from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.sql import migrations
from gwanjong_gateway.record.store import PostgresStrikeStore, StrikeStore
from gwanjong_gateway.rules.ledger import (
    ClaimRequest,
    Strike,
    StrikeStatus,
    Verdict,
)
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from tests.gateway.helpers import in_threads
from tests.gateway.rows import claim_of

T = TypeVar("T")
NOW = 1_800_000_000.0
WORKERS = 8


def together(url: str, jobs: list[Callable[[PostgresStrikeStore], T]]) -> list[T | None]:
    """Each job on its own connection, all released at once; their answers (None for a
    job that did not finish)."""
    stores = [PostgresStrikeStore(url) for _ in jobs]
    gate = threading.Barrier(len(jobs))
    out: list[T | None] = [None] * len(jobs)

    def one(i: int) -> None:
        gate.wait()
        out[i] = jobs[i](stores[i])

    in_threads(one, *((i,) for i in range(len(jobs))))
    for store in stores:
        store.close()
    return out


def race(url: str, requests: list[ClaimRequest]) -> list[Verdict]:
    """Each request decided by its own connection, all released at once."""
    verdicts = together(url, [partial(_claim, req) for req in requests])
    assert all(v is not None for v in verdicts), verdicts
    return [v for v in verdicts if v is not None]


def _claim(req: ClaimRequest, store: PostgresStrikeStore) -> Verdict:
    return store.decide(req, NOW, insert=True)


def test_a_new_database_is_migrated_once_even_by_racing_openers(pg_url: str) -> None:
    opened: list[PostgresStrikeStore] = []
    gate = threading.Barrier(4)

    def open_one() -> None:
        gate.wait()
        opened.append(PostgresStrikeStore(pg_url))

    in_threads(open_one, (), (), (), ())
    assert len(opened) == 4
    assert {s.schema_version() for s in opened} == {migrations.LATEST}
    for s in opened:
        s.close()
    with psycopg.connect(pg_url) as db:
        versions = [r[0] for r in db.execute("SELECT version FROM schema_version ORDER BY 1")]
    assert versions == list(range(1, migrations.LATEST + 1))


@pytest.mark.parametrize("same_target", [True, False], ids=["same-target", "one-author"])
def test_racing_connections_get_exactly_one_claim(pg_url: str, same_target: bool) -> None:
    PostgresStrikeStore(pg_url).close()  # migrate first: the race is about claims
    targets = ["t0"] * WORKERS if same_target else [f"t{i}" for i in range(WORKERS)]
    verdicts = race(pg_url, [claim_of(t, f"reply {i}") for i, t in enumerate(targets)])
    granted = [v for v in verdicts if v.row is not None]
    assert len(granted) == 1, verdicts
    losers = [v for v in verdicts if v.row is None]
    if same_target:
        assert all(v.earlier is not None and v.earlier.id == granted[0].row.id for v in losers)  # type: ignore[union-attr]
    else:
        assert all("Daily cap reached: 1 of 1" in v.refusal for v in losers), losers
    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT COUNT(*) FROM strikes").fetchone() == (1,)


def test_of_many_connections_taking_one_row_at_once_one_gets_it(pg_url: str) -> None:
    first = PostgresStrikeStore(pg_url)
    row = first.insert(**{**claim_of("p1").row, "status": StrikeStatus.UNKNOWN}, now=NOW)
    first.close()

    def take(by: str) -> Callable[[PostgresStrikeStore], Strike | None]:
        return lambda store: store.take_settling(row.id, by, NOW, 60.0)

    taken = [t for t in together(pg_url, [take(f"r{i}") for i in range(WORKERS)]) if t]
    assert len(taken) == 1 and taken[0].settling_until == NOW + 60


def test_the_database_refuses_a_second_live_claim_on_a_target(store: PostgresStrikeStore) -> None:
    store.insert(**claim_of("t1").row, now=NOW)
    with pytest.raises(psycopg.errors.UniqueViolation):
        store.insert(**claim_of("t1", "other words").row, now=NOW)
    store.insert(**{**claim_of("t1").row, "status": StrikeStatus.REFUSED}, now=NOW)


def test_pending_handoffs_has_its_index(store: PostgresStrikeStore) -> None:
    # the lookup itself is checked on both engines (tests/gateway/record/test_store_handoff.py)
    index = store.engine.x(
        "SELECT indexdef FROM pg_indexes WHERE indexname = 'strikes_opportunity'"
    ).fetchone()
    assert index is not None and "(opportunity, status)" in index["indexdef"], index


@pytest.mark.anyio
async def test_a_held_platform_lock_is_busy_and_other_platforms_go_on(
    pg_url: str, tmp_path: Path
) -> None:
    records = Records(tmp_path / "unused.db", busy_timeout_s=0.5, url=pg_url)
    assert await records.open()
    reddit = claim_of("r1")
    reddit = ClaimRequest(**{**reddit.__dict__, "row": {**reddit.row, "platform": "reddit"}})
    with psycopg.connect(pg_url) as holder, holder.transaction():
        holder.execute("SELECT pg_advisory_xact_lock(hashtext('gwanjong:devto'))")
        with pytest.raises(PlatformError) as busy:
            await records.run(StrikeStore.decide, claim_of("t1"), NOW, True)
        other = await records.run(StrikeStore.decide, reddit, NOW, True)
    assert busy.value.kind is ErrorKind.UNAVAILABLE
    assert "is busy" in str(busy.value) and "try again in 1 s" in str(busy.value)
    assert other.row is not None
    granted = await records.run(StrikeStore.decide, claim_of("t1"), NOW, True)  # released
    assert granted.row is not None
    records.close()


@pytest.mark.anyio
async def test_a_lost_connection_is_replaced_or_answers_unavailable(
    pg_url: str, tmp_path: Path
) -> None:
    # The server ends the record's connections (a restart, an admin, a failover). A call
    # either notices first (the idle connection is dropped and a new one answers) or meets
    # the dead one and answers `unavailable`; either way the next call answers from a new
    # connection, never from one the server ended.
    records = Records(tmp_path / "unused.db", url=pg_url)
    assert await records.open()
    await records.run(StrikeStore.history)

    def ours(admin: psycopg.Connection[Any]) -> set[int]:
        rows = admin.execute(
            "SELECT pid FROM pg_stat_activity "
            "WHERE application_name = 'gwanjong' AND datname = current_database()"
        ).fetchall()
        return {int(r[0]) for r in rows}

    with psycopg.connect(pg_url, autocommit=True) as admin:
        ended = ours(admin)
        assert ended, "the record holds no connection to end"
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", (list(ended),)
        )
        try:
            rows: Any = await records.run(StrikeStore.history)
        except PlatformError as exc:  # met the dead connection before noticing it
            assert str(exc).startswith("unavailable: the strike record database at"), exc
            rows = await records.run(StrikeStore.history)
        assert rows == []
        now = ours(admin)
        assert now and not (now & ended), (ended, now)  # a new connection answered
    records.close()
