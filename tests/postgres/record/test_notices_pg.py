"""Two replicas sharing one PostgreSQL record, each running a notifier: what waits is told
once between them (the period and each event are claimed by compare-and-set), and each
new thing once more; a platform down longer than `down_after_s`, which each replica sees
in its own memory, is told once between them and not again after a restart."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import anyio
import pytest

from gwanjong_gateway.config_away import NotifySection
from gwanjong_gateway.notify.deliver import Retry
from gwanjong_gateway.notify.notifier import Notifier
from gwanjong_gateway.notify.sources import GatewayEvents
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store_pg import PostgresStrikeStore
from tests.gateway.notify.records import hand_off, open_approval

pytestmark = pytest.mark.anyio

NOW = 1_800_000_000.0
URL = "json://127.0.0.1:9/x"


class Clock:
    now = NOW

    def __call__(self) -> float:
        return self.now


async def test_two_replicas_tell_each_thing_once(pg_url: str, tmp_path: Path) -> None:
    clock = Clock()
    sent: list[str] = []

    def send(url: str, title: str, body: str) -> bool:
        sent.append(body)
        return True

    replicas = []
    for _ in range(2):
        records = Records(tmp_path / "unused.db", url=pg_url)
        replicas.append(
            (
                Notifier(
                    NotifySection(urls=[URL]),
                    records,
                    [URL],
                    "",
                    clock=clock,
                    send=send,
                    retry=Retry(backoff_s=()),
                ),
                records,
            )
        )
    with closing(PostgresStrikeStore(pg_url)) as store:
        open_approval(store, "p1", NOW - 60)
        hand_off(store, "q1", NOW - 60)

    async def both() -> None:
        async def one(n: Notifier) -> None:
            await n.scan()
            message = await n.tick()
            if message is not None:
                await n.deliver(message)

        async with anyio.create_task_group() as tg:
            for n, _ in replicas:
                tg.start_soon(one, n)

    await both()
    assert len(sent) == 1 and "1 approvals waiting" in sent[0] and "1 hand-offs" in sent[0]
    clock.now = NOW + 400  # the next period: nothing new
    await both()
    assert len(sent) == 1
    with closing(PostgresStrikeStore(pg_url)) as store:
        open_approval(store, "p2", NOW + 401)
    clock.now = NOW + 800
    await both()
    assert (
        len(sent) == 2 and sent[1].startswith("1 approvals waiting") and "hand-off" not in sent[1]
    )
    for _, records in replicas:
        records.close()


async def test_a_platform_down_is_told_once_by_two_replicas_and_not_after_a_restart(
    pg_url: str, tmp_path: Path
) -> None:
    clock = Clock()
    sent: list[str] = []
    section = NotifySection(urls=[URL], down_after_s=600)

    def send(url: str, title: str, body: str) -> bool:
        sent.append(body)
        return True

    def health() -> dict[str, dict[str, str]]:
        return {"reddit": {"health": "down", "reason": "unavailable"}}

    def replica(records: Records) -> Notifier:
        down = GatewayEvents(section, health, {}, lambda _p, _s: 0, clock)
        return Notifier(
            section,
            records,
            [URL],
            "",
            clock=clock,
            send=send,
            sources=[down],
            retry=Retry(backoff_s=()),
        )

    async def run(notifiers: list[Notifier]) -> None:
        async def one(n: Notifier) -> None:
            await n.scan()
            message = await n.tick()
            if message is not None:
                await n.deliver(message)

        async with anyio.create_task_group() as tg:
            for n in notifiers:
                tg.start_soon(one, n)

    records = [Records(tmp_path / "unused.db", url=pg_url) for _ in range(2)]
    try:
        both = [replica(r) for r in records]
        await run(both)  # reddit is seen down: not yet for long
        assert sent == []
        clock.now = NOW + 601
        await run(both)
        assert len(sent) == 1 and "platforms down" in sent[0]
        clock.now = NOW + 1300  # the next periods: still down, told already
        await run(both)
        assert len(sent) == 1
        restarted = [replica(records[0])]  # a restart forgets when reddit went down
        await run(restarted)
        clock.now = NOW + 2000
        await run(restarted)
        assert len(sent) == 1
    finally:
        for r in records:
            r.close()
