"""A frozen PostgreSQL (every server process SIGSTOPped: connections stay open, nothing
answers) must not freeze the gateway: each record call answers `unavailable` by its
deadline, other calls are not queued behind the hung one, and after SIGCONT the record
works again on a fresh connection (every tool of a gateway on a frozen database:
test_fault_matrix.py)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from gwanjong_gateway.config import StoreSection
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from tests.postgres.outages.faults import frozen

#: behaviour, not speed: a hang would run into this; an answer comes long before
GENEROUS_S = 30


@pytest.mark.anyio
async def test_a_frozen_database_answers_unavailable_by_the_deadline(
    pg_url: str, tmp_path: Path
) -> None:
    default = StoreSection()  # configurable, with sane defaults
    assert default.call_deadline_s <= 20 and default.lock_timeout_s < default.call_deadline_s
    with pytest.raises(ValueError):
        StoreSection(pool_size=0)
    settings = StoreSection(url=pg_url, call_deadline_s=1.0, pool_size=4)
    records = Records(tmp_path / "unused.db", url=pg_url, store=settings)
    assert await records.open()
    answers: list[str] = []

    async def one(fn: object) -> None:
        try:
            await records.run(fn)  # type: ignore[arg-type]
        except PlatformError as exc:
            assert exc.kind is ErrorKind.UNAVAILABLE
            answers.append(str(exc))
        else:
            answers.append("answered")

    with frozen():
        with anyio.fail_after(GENEROUS_S):
            async with anyio.create_task_group() as tg:
                for _ in range(6):  # more than the pool: none waits on another's hang
                    tg.start_soon(one, StrikeStore.history)
                    tg.start_soon(one, StrikeStore.unsettled)
            with pytest.raises(PlatformError) as status:
                await records.run_within(0.5, StrikeStore.paused, "devto")
    assert len(answers) == 12
    assert all("did not answer within 1 s" in a for a in answers), answers
    assert "Check the database" in answers[0]
    assert "within 0.5 s" in str(status.value)
    with anyio.fail_after(GENEROUS_S):  # continued: a fresh connection answers
        assert await records.run(StrikeStore.history) == []
    records.close()


@pytest.mark.anyio
async def test_one_tool_call_waits_for_a_frozen_record_once(pg_url: str, tmp_path: Path) -> None:
    """Within `one_wait` (scout), the first call that answers `unavailable` answers for
    the rest: the later calls are not sent to the frozen database at all."""
    settings = StoreSection(url=pg_url, call_deadline_s=1.0, pool_size=4)
    records = Records(tmp_path / "unused.db", url=pg_url, store=settings)
    assert await records.open()
    sent: list[str] = []

    def history(store: StrikeStore, name: str) -> object:
        sent.append(name)
        return store.history()

    def hold(store: StrikeStore) -> None:
        store.engine.x("SELECT pg_sleep(0.3)")  # pyright: ignore[reportPrivateUsage]

    async with anyio.create_task_group() as tg:  # idle connections for every call below
        for _ in range(4):
            tg.start_soon(records.run, hold)
    with frozen(), anyio.fail_after(GENEROUS_S), records.one_wait():
        answers = []
        for name in ("first", "second", "third"):
            with pytest.raises(PlatformError) as answer:
                await records.run(history, name)
            answers.append(str(answer.value))
    assert sent == ["first"]
    assert len(set(answers)) == 1 and "did not answer within 1 s" in answers[0], answers
    with anyio.fail_after(GENEROUS_S):  # outside it, every call asks the database again
        assert await records.run(history, "after") == []
    assert sent == ["first", "after"]
    records.close()
