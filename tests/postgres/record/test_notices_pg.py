"""Two replicas sharing one PostgreSQL record, each running a notifier: what waits is told
once between them (the period and each event are claimed by compare-and-set), and each
new thing once more."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import anyio
import pytest

from gwanjong_gateway.config_away import NotifySection
from gwanjong_gateway.notify.deliver import Retry
from gwanjong_gateway.notify.notifier import Notifier
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import PostgresStrikeStore
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
