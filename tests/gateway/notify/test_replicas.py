"""Two replicas sharing one record (a SQLite file, or one PostgreSQL in the postgres tier),
each running a notifier: what waits is told
once between them (the period and each event are claimed by compare-and-set), and each
new thing once more; a platform down longer than `down_after_s`, which each replica sees
in its own memory, is told once between them and not again after a restart."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from gwanjong_gateway.config.away import NotifySection
from gwanjong_gateway.notify.deliver import Retry
from gwanjong_gateway.notify.notifier import Notifier
from gwanjong_gateway.notify.sources import GatewayEvents
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from tests.gateway.notify.records import hand_off, open_approval

pytestmark = pytest.mark.anyio

NOW = 1_800_000_000.0
URL = "json://127.0.0.1:9/x"


class Clock:
    now = NOW

    def __call__(self) -> float:
        return self.now


class Replicas:
    """Notifiers on one record (`store_url`: "" for SQLite), sending to `sent`, on one clock."""

    def __init__(self, store_url: str, tmp_path: Path, section: NotifySection) -> None:
        self.clock, self.section, self.sent = Clock(), section, list[str]()
        self.records = [Records(tmp_path / "gwanjong.db", url=store_url) for _ in range(2)]

    def send(self, url: str, title: str, body: str) -> bool:
        self.sent.append(body)
        return True

    def notifier(self, records: Records, sources: list[GatewayEvents]) -> Notifier:
        return Notifier(
            self.section, records, [URL], "", clock=self.clock, send=self.send,
            retry=Retry(backoff_s=()), sources=sources,
        )  # fmt: skip

    async def period(self, notifiers: list[Notifier]) -> None:
        async def one(n: Notifier) -> None:
            await n.scan()
            message = await n.tick()
            if message is not None:
                await n.deliver(message)

        async with anyio.create_task_group() as tg:
            for n in notifiers:
                tg.start_soon(one, n)

    def close(self) -> None:
        for records in self.records:
            records.close()


async def test_two_replicas_tell_each_thing_once(
    store_url: str, record: StrikeStore, tmp_path: Path
) -> None:
    r = Replicas(store_url, tmp_path, NotifySection(urls=[URL]))
    both = [r.notifier(records, []) for records in r.records]
    open_approval(record, "p1", NOW - 60)
    hand_off(record, "q1", NOW - 60)
    await r.period(both)
    assert len(r.sent) == 1 and "1 approvals waiting" in r.sent[0] and "1 hand-offs" in r.sent[0]
    r.clock.now = NOW + 400  # the next period: nothing new
    await r.period(both)
    assert len(r.sent) == 1
    open_approval(record, "p2", NOW + 401)
    r.clock.now = NOW + 800
    await r.period(both)
    sent = r.sent
    assert (
        len(sent) == 2 and sent[1].startswith("1 approvals waiting") and "hand-off" not in sent[1]
    )
    last = record.last_notice()  # what both status surfaces show
    assert last is not None and last.summary.startswith("1 approvals waiting") and last.sent_at
    r.close()


async def test_a_platform_down_is_told_once_by_two_replicas_and_not_after_a_restart(
    store_url: str, tmp_path: Path
) -> None:
    r = Replicas(store_url, tmp_path, NotifySection(urls=[URL], down_after_s=600))

    def replica(records: Records) -> Notifier:
        down = {"reddit": {"health": "down", "reason": "unavailable"}}
        return r.notifier(
            records, [GatewayEvents(r.section, lambda: down, {}, lambda _p, _s: 0, r.clock)]
        )

    both = [replica(records) for records in r.records]
    await r.period(both)  # reddit is seen down: not yet for long
    assert r.sent == []
    r.clock.now = NOW + 601
    await r.period(both)
    assert len(r.sent) == 1 and "platforms down" in r.sent[0]
    r.clock.now = NOW + 1300  # the next period: still down, told already
    await r.period(both)
    restarted = [replica(r.records[0])]  # a restart forgets when reddit went down
    await r.period(restarted)
    r.clock.now = NOW + 2000
    await r.period(restarted)
    assert len(r.sent) == 1
    r.close()
