"""Two replicas sharing one record (a SQLite file, or one PostgreSQL in the postgres tier),
each running a notifier: what waits is told once between them (the period and each event
are claimed by compare-and-set), and each new thing once more (what a channel missed: to it
once more), nothing again after a restart; a platform down longer than `down_after_s`, which each replica sees in its own
memory, is told once between them and not again after a restart."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from gwanjong_gateway.config.away import NotifySection
from gwanjong_gateway.notify.deliver import Retry
from gwanjong_gateway.notify.notifier import Notifier
from gwanjong_gateway.notify.sources import GatewayEvents
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from tests.fakes.clock import FakeClock
from tests.gateway.notify.records import hand_off, open_approval
from tests.gateway.notify.test_notifier import Sent, cycle

pytestmark = pytest.mark.anyio

NOW = 1_800_000_000.0
URL = "json://127.0.0.1:9/x"


@pytest.fixture
def both(store_url: str, tmp_path: Path) -> Iterator[list[Records]]:
    """Each replica's own connection to the one record."""
    records = [Records(tmp_path / "gwanjong.db", url=store_url) for _ in range(2)]
    yield records
    for r in records:
        r.close()


def notifier(
    records: Records,
    clock: FakeClock,
    sent: Sent,
    section: NotifySection,
    *sources: GatewayEvents,
    urls: list[str] | None = None,
) -> Notifier:
    """``urls``: `section.urls` with their `${VAR}`s expanded (default: none to expand)."""
    return Notifier(
        section, records, urls or section.urls, "", clock=clock.time, send=sent,
        retry=Retry(backoff_s=()), sources=list(sources),
    )  # fmt: skip


async def period(notifiers: list[Notifier]) -> list[str]:
    """One period of every notifier at once: the bodies sent."""
    bodies: list[str | None] = []

    async def one(n: Notifier) -> None:
        bodies.append(await cycle(n))

    async with anyio.create_task_group() as tg:
        for n in notifiers:
            tg.start_soon(one, n)
    return [b for b in bodies if b is not None]


async def test_two_replicas_tell_each_thing_once_and_not_after_a_restart(
    both: list[Records], record: StrikeStore
) -> None:
    clock, sent, section = FakeClock(wall=NOW), Sent(), NotifySection(urls=[URL])
    replicas = [notifier(records, clock, sent, section) for records in both]
    open_approval(record, "p1", NOW - 60)
    hand_off(record, "q1", NOW - 60)
    [first] = await period(replicas)
    assert "1 approvals waiting" in first and "1 hand-offs" in first
    clock.advance(400)  # the next period: nothing new
    assert await period(replicas) == []
    open_approval(record, "p2", NOW + 401)
    clock.advance(400)
    [second] = await period(replicas)
    assert second.startswith("1 approvals waiting") and "hand-off" not in second
    clock.advance(3600)
    restarted = notifier(both[0], clock, sent, section)  # a new process on the same record
    assert await period([restarted]) == []
    assert len(sent.messages) == 2
    last = record.last_notice()  # what both status surfaces show
    assert last is not None and last.summary == "1 approvals waiting" and last.sent_at
    assert last.error == ""


async def test_a_message_a_channel_could_not_take_is_sent_to_it_again_once(
    both: list[Records], record: StrikeStore
) -> None:
    clock, sent = FakeClock(wall=NOW), Sent()
    other = "json://127.0.0.1:9/other"
    section = NotifySection(urls=[URL, other])
    replicas = [notifier(records, clock, sent, section) for records in both]
    open_approval(record, "p1", NOW - 60)
    open_approval(record, "p2", NOW - 60, expires_in=300)  # gone before the next try
    sent.down = {other}
    await period(replicas)
    assert sorted(url for url, *_ in sent.messages) == [other, URL]
    assert "gave up" in (record.last_notice() or pytest.fail()).error
    sent.down = set()
    clock.advance(400)
    await period(replicas)
    [(to, _title, body)] = sent.messages[2:]  # the channel that missed it, and only it
    assert to == other and body.startswith("1 approvals waiting")
    assert "1 approvals expired before you were told" in body
    clock.advance(400)
    await period([*replicas, notifier(both[0], clock, sent, section)])
    assert len(sent.messages) == 3


async def test_a_channel_whose_token_is_rotated_is_still_sent_what_it_missed(
    both: list[Records], record: StrikeStore, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    clock, sent = FakeClock(wall=NOW), Sent()
    section = NotifySection(urls=["${HOOK}", URL])  # the channel as the person names it
    old, new = f"{URL}?token=0ld-t0ken", f"{URL}?token=n3w-t0ken"  # ${HOOK} before and after
    open_approval(record, "p1", NOW - 60)
    sent.down = {old}
    await period([notifier(both[0], clock, sent, section, urls=[old, URL])])
    assert sorted(url for url, *_ in sent.messages) == sorted([old, URL])
    sent.down, sent.messages = set(), []
    clock.advance(400)  # restarted with the token rotated: the same channel
    rotated = [notifier(records, clock, sent, section, urls=[new, URL]) for records in both]
    await period(rotated)
    [(to, _title, body)] = sent.messages
    assert to == new and body.startswith("1 approvals waiting")
    # one it still misses, then removed from gateway.toml: what it was owed is dropped,
    # said in the log (never the channel's URL), by the one replica that took it
    open_approval(record, "p2", clock.wall)
    sent.down = {new}
    clock.advance(400)
    await period(rotated)
    assert record.found(0, "owed:")
    clock.advance(400)
    kept = NotifySection(urls=[URL])
    await period([notifier(records, clock, sent, kept) for records in both])
    assert record.found(0, "owed:") == []
    assert caplog.text.count("no longer in [notify] urls") == 1
    for secret in ("0ld-t0ken", "n3w-t0ken"):
        assert secret not in caplog.text


async def test_a_platform_down_is_told_once_by_two_replicas_and_not_after_a_restart(
    both: list[Records],
) -> None:
    clock, sent = FakeClock(wall=NOW), Sent()
    section = NotifySection(urls=[URL], down_after_s=600)

    def replica(records: Records) -> Notifier:
        down = {"reddit": {"health": "down", "reason": "unavailable"}}
        events = GatewayEvents(section, lambda: down, {}, lambda _p, _s: 0, clock.time)
        return notifier(records, clock, sent, section, events)

    replicas = [replica(records) for records in both]
    await period(replicas)  # reddit is seen down: not yet for long
    assert sent.messages == []
    clock.advance(601)
    await period(replicas)
    assert len(sent.messages) == 1 and "platforms down" in sent.messages[0][2]
    clock.advance(699)  # the next period: still down, told already
    await period(replicas)
    restarted = [replica(both[0])]  # a restart forgets when reddit went down
    await period(restarted)
    clock.advance(700)
    await period(restarted)
    assert len(sent.messages) == 1
