"""The notifier with an injected clock, on a real SQLite record: one message per period
with counts and the oldest, quiet hours (what expired within them is told after), "about to
expire" told once more (nothing told twice after a restart: test_replicas.py), nothing the
person caused, no platform text, and a channel that keeps failing gives up with a line that
names no secret."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import anyio
import pytest

from gwanjong_gateway.config.away import NotifySection
from gwanjong_gateway.notify.deliver import Retry
from gwanjong_gateway.notify.events import Event, EventKind, compose
from gwanjong_gateway.notify.notifier import PAGE, Notifier, channel_id, quiet
from gwanjong_gateway.notify.redact import shown
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus
from tests.fakes.clock import FakeClock
from tests.gateway.notify.records import BODY, hand_off, open_approval
from tests.gateway.rows import strike_row

pytestmark = pytest.mark.anyio

NOON = datetime(2026, 12, 7, 12, 0, tzinfo=UTC).timestamp()
BASE = "https://gwanjong.example.com"
SECRET_URL = "json://user:hunter2@hooks.example.com/t0ken?key=s3cret"


class Sent:
    """A channel that keeps what it was sent (runs in the worker thread, as Apprise does)."""

    def __init__(self, ok: bool = True) -> None:
        self.ok = ok
        self.down: set[str] = set()  # channels that refuse
        self.messages: list[tuple[str, str, str]] = []

    def __call__(self, url: str, title: str, body: str) -> bool:
        self.messages.append((url, title, body))
        return self.ok and url not in self.down


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "gwanjong.db"
    StrikeStore(path).close()
    yield path


def notifier(
    db: Path, clock: FakeClock, sent: Sent, handoff_s: float = 7 * 86400.0, **settings: object
) -> tuple[Notifier, Records]:
    records = Records(db)
    urls = settings.pop("urls", ["json://127.0.0.1:9/x"])
    section = NotifySection.model_validate({"urls": urls, **settings})
    retry = Retry(backoff_s=(0, 0), try_s=5)
    n = Notifier(
        section, records, section.urls, BASE, clock=clock.time, send=sent, retry=retry,
        handoff_expire_after_s=handoff_s,
    )  # fmt: skip
    return n, records


async def cycle(n: Notifier) -> str | None:
    await n.scan()
    messages = await n.tick()
    if not messages:
        return None
    await n.deliver(messages)
    return next(iter(messages.values())).body


async def test_one_message_per_period_with_counts_oldest_and_the_page(db: Path) -> None:
    clock, sent = FakeClock(wall=NOON), Sent()
    with closing(StrikeStore(db)) as store:
        open_approval(store, "p1", NOON - 3 * 3600)
        open_approval(store, "p2", NOON - 600)
        hand_off(store, "q1", NOON - 7200)
    n, records = notifier(db, clock, sent, every_s=300)
    body = await cycle(n)
    assert body is not None
    assert "2 approvals waiting on devto (oldest 3 h ago)" in body
    assert "1 hand-offs waiting to be posted on bluesky (oldest 2 h ago)" in body
    assert f"Open {BASE}/approvals" in body and f"Open {BASE}/handoffs" in body
    assert BODY not in body and "signin" not in body
    assert len(sent.messages) == 1

    with closing(StrikeStore(db)) as store:
        open_approval(store, "p3", NOON + 10)
    clock.wall = NOON + 60
    assert await cycle(n) is None  # within the period: it waits for the next one
    clock.wall = NOON + 301
    body = await cycle(n)
    assert body is not None and body.startswith("1 approvals waiting on devto (oldest 4 min ago)")
    assert "hand-off" not in body  # told already
    assert len(sent.messages) == 2
    records.close()


async def test_quiet_hours_hold_messages_until_they_end_in_their_time_zone(db: Path) -> None:
    night = datetime(2026, 12, 7, 23, 30, tzinfo=UTC).timestamp()
    clock, sent = FakeClock(wall=night), Sent()
    with closing(StrikeStore(db)) as store:
        open_approval(store, "p1", night - 60)
        open_approval(store, "p2", night + 3600, expires_in=3600)  # opens and expires unseen
    n, records = notifier(db, clock, sent, quiet_hours="22:00-07:00", timezone="UTC")
    assert await cycle(n) is None
    clock.wall = night + 6 * 3600  # 05:30
    assert await cycle(n) is None
    clock.wall = night + 7.5 * 3600  # 07:00
    body = await cycle(n)
    assert body is not None and "1 approvals waiting" in body
    assert "1 approvals expired before you were told on devto (oldest 6 h ago)" in body
    assert sent.messages[-1][1] == "gwanjong: 1 thing waits for you"  # the expired one waits not
    clock.wall += 400
    assert await cycle(n) is None  # told once
    records.close()
    gone = Event(kind=EventKind.APPROVAL_EXPIRED, key="a2", platform="devto", at=night)
    title = compose("k", [gone], night, BASE).title  # nothing waits: the title says what
    assert title == "gwanjong: 1 approvals expired before you were told"
    seoul = NotifySection(quiet_hours="22:00-07:00", timezone="Asia/Seoul")  # in a time zone
    assert quiet(seoul, NOON) is False  # 21:00 in Seoul
    assert quiet(seoul, NOON + 3600) is True  # 22:00 in Seoul
    lunch = NotifySection(quiet_hours="12:00-13:00", timezone="UTC")  # within a day
    assert quiet(lunch, NOON) is True and quiet(lunch, NOON + 3600) is False


async def test_a_handoff_that_opens_and_expires_in_quiet_hours_is_told_after_once(
    db: Path,
) -> None:
    night = datetime(2026, 12, 7, 23, 30, tzinfo=UTC).timestamp()
    clock, sent = FakeClock(wall=night), Sent()
    with closing(StrikeStore(db)) as store:  # each waits 3 h
        hand_off(store, "q2", night + 3600)  # expires at 03:30, swept by a strike at 04:00
        assert store.expire_handoffs(night + 3600 + 1, night + 4.5 * 3600) == 1
        hand_off(store, "q1", night + 600)  # expires at 02:40, swept by no one
        hand_off(store, "q0", night + 5.5 * 3600)  # 05:00: still waits at 07:00
    urls = ["json://127.0.0.1:9/x", "json://127.0.0.1:9/y"]
    quiet_hours = {"quiet_hours": "22:00-07:00", "timezone": "UTC", "urls": urls}
    n, records = notifier(db, clock, sent, handoff_s=3 * 3600, **quiet_hours)
    assert await cycle(n) is None
    clock.wall = night + 7.5 * 3600  # 07:00
    await n.scan()
    messages = await n.tick()
    assert sorted(messages) == urls  # on each channel
    for message in messages.values():
        assert "1 hand-offs waiting to be posted on bluesky (oldest 2 h ago)" in message.body
        assert (
            "2 hand-offs expired before you were told on bluesky (oldest 7 h ago)" in message.body
        )
        assert f"Open {BASE}/history?status=expired" in message.body and BODY not in message.body
        assert message.title == "gwanjong: 1 thing waits for you"
    await n.deliver(messages)
    clock.wall += 400
    assert await cycle(n) is None  # told once
    records.close()


async def test_an_unsure_write_only_a_person_can_settle_is_told_once(db: Path) -> None:
    clock, sent = FakeClock(wall=NOON), Sent()
    with closing(StrikeStore(db)) as store:
        unsure = {"status": StrikeStatus.UNKNOWN, "content": BODY, "created_at": NOON - 7200}
        strike_row(store, intent_key="k1", target="t1", needs_person=True, **unsure)
        strike_row(store, intent_key="k2", target="t2", **unsure)  # read back by gwanjong
    n, records = notifier(db, clock, sent)
    body = await cycle(n)
    assert body is not None
    assert body.startswith("1 unsure writes for you to settle on devto (oldest 2 h ago)")
    assert f"Open {BASE}/history?status=unknown" in body and BODY not in body
    clock.wall += 400
    assert await cycle(n) is None  # told once
    records.close()


async def test_an_approval_about_to_expire_is_told_once_more(db: Path) -> None:
    clock, sent = FakeClock(wall=NOON), Sent()
    with closing(StrikeStore(db)) as store:
        open_approval(store, "p1", NOON, expires_in=3 * 3600)
    n, records = notifier(db, clock, sent, every_s=300, expiring_within_s=3600)
    first = await cycle(n)
    assert first is not None and "about to expire" not in first
    clock.wall = NOON + 3600
    assert await cycle(n) is None  # nothing new
    clock.wall = NOON + 2.5 * 3600
    second = await cycle(n)
    assert second is not None and second.startswith("1 approvals about to expire on devto")
    clock.wall = NOON + 2.8 * 3600
    assert await cycle(n) is None  # once
    records.close()
    # A period longer than the warning: the last message before it expires says so
    # (the next one comes after), and one approval is one thing that waits.
    with closing(StrikeStore(db)) as store:
        open_approval(store, "p2", clock.wall, expires_in=1.5 * 3600)
    n, records = notifier(db, clock, sent, every_s=7200, expiring_within_s=3600)
    third = await cycle(n)
    assert third is not None and "1 approvals about to expire on devto" in third
    assert sent.messages[-1][1] == "gwanjong: 1 thing waits for you"
    records.close()


async def test_more_approvals_than_one_read_takes_are_all_told(db: Path) -> None:
    clock, sent = FakeClock(wall=NOON), Sent()
    with closing(StrikeStore(db)) as store:
        for i in range(PAGE + 1):
            open_approval(store, f"p{i}", NOON - 60)
    n, records = notifier(db, clock, sent)
    body = await cycle(n)
    assert body is not None and body.startswith(f"{PAGE + 1} approvals waiting")
    records.close()


async def test_what_the_person_caused_and_kinds_left_out_are_not_sent(db: Path) -> None:
    clock, sent = FakeClock(wall=NOON), Sent()
    n, records = notifier(db, clock, sent, events=["summoned"])
    n.publish(
        Event(kind=EventKind.SUMMONED, key="bluesky:1", platform="bluesky", at=NOON, by_person=True)
    )
    n.publish(Event(kind=EventKind.PLATFORM_DOWN, key="reddit:1", platform="reddit", at=NOON))
    with closing(StrikeStore(db)) as store:
        open_approval(store, "p1", NOON)  # approvals are left out by `events`
    assert await cycle(n) is None
    n.publish(Event(kind=EventKind.SUMMONED, key="bluesky:2", platform="bluesky", at=NOON - 120))
    body = await cycle(n)
    assert body is not None
    assert body.startswith("1 new mentions or replies on bluesky (oldest 2 min")
    assert f"Open {BASE}/inbox" in body and "approval" not in body
    records.close()


async def test_a_channel_that_keeps_failing_gives_up_naming_its_scheme_and_host_only(
    db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    clock = FakeClock(wall=NOON)

    def boom(url: str, title: str, body: str) -> bool:
        raise RuntimeError(f"cannot reach {url}")  # as a plugin might word it

    with closing(StrikeStore(db)) as store:
        open_approval(store, "p1", NOON)
    records = Records(db)
    n = Notifier(
        NotifySection(urls=["${HOOK}"]),
        records,
        [SECRET_URL],
        BASE,
        clock=clock.time,
        send=boom,
        retry=Retry(backoff_s=(0, 0), try_s=5),
    )
    await n.scan()
    messages = await n.tick()
    assert messages
    error = await n.deliver(messages)
    assert error == "json://hooks.example.com: gave up: failed (RuntimeError)"
    with closing(StrikeStore(db)) as store:
        last = store.last_notice()
    assert last is not None and last.error == error and last.sent_at == NOON
    for secret in ("hunter2", "t0ken", "s3cret", "user"):
        assert secret not in caplog.text and secret not in error
    assert caplog.text.count("json://hooks.example.com") == 3  # two retries, one give-up
    records.close()
    # a URL is shown as its scheme and host only
    assert shown("mailto://me:pw@mail.example.com?to=x@y") == "mailto://mail.example.com"
    assert shown("ntfys://tok@ntfy.sh/topic") == "ntfys://ntfy.sh"
    assert shown("garbage") == "(not a URL)"


async def test_a_channel_stopped_between_tries_is_sent_it_after_a_restart(db: Path) -> None:
    clock, sent, paused = FakeClock(wall=NOON), Sent(), anyio.Event()

    async def pause(_s: float) -> None:  # the process stops while it waits to try again
        paused.set()
        await anyio.sleep_forever()

    with closing(StrikeStore(db)) as store:
        open_approval(store, "p1", NOON)
    n, records = notifier(db, clock, sent)
    n.retry, sent.down = Retry(sleep=pause), {n.urls[0]}
    await n.scan()
    async with anyio.create_task_group() as tg:
        tg.start_soon(n.deliver, await n.tick())
        await paused.wait()
        tg.cancel_scope.cancel()
    records.close()
    sent.down, clock.wall = set(), NOON + 400
    n, records = notifier(db, clock, sent)  # the restart
    body = await cycle(n)
    assert body is not None and body.startswith("1 approvals waiting")
    records.close()


async def test_what_a_channel_missed_under_its_url_s_hash_still_reaches_it(db: Path) -> None:
    # kept by a gwanjong from before channels were named as written: a channel's rows were
    # keyed by its expanded URL's hash; while that URL is the same, they are its own
    clock, sent = FakeClock(wall=NOON), Sent()
    with closing(StrikeStore(db)) as store:
        told = f"approval_waiting:a{open_approval(store, 'p1', NOON - 600)}"
        owed = f"owed:{channel_id(SECRET_URL)}:{told}"
        assert store.claim_notices([told, owed], NOON - 600, "before") == [told, owed]
    records = Records(db)
    section, retry = NotifySection(urls=["${HOOK}"]), Retry(backoff_s=(), try_s=5)
    n = Notifier(section, records, [SECRET_URL], BASE, clock=clock.time, send=sent, retry=retry)
    body = await cycle(n)
    assert body is not None and body.startswith("1 approvals waiting")
    assert [url for url, *_ in sent.messages] == [SECRET_URL]
    records.close()


def test_a_url_whose_host_part_is_its_token_shows_no_host() -> None:
    # many Apprise schemes put the secret where a host would be: shown() must not take
    # that for a server's name (status's `notified`, the logs and the record show it)
    tokens = {
        "prowl://0123456789abcdef0123456789abcdef01234567": "0123456789abcdef",
        "pover://userkey@apptoken123abc": "apptoken123abc",
        "pbul://o.gn5kj6nfhv736I7jC3cj3QLRiyhgl98b": "gn5kj6nfhv736",
        "slack://T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ": "t1jj3t3l2",
        "tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/12315544": "123456789",
        "ntfy://my-secret-topic": "my-secret-topic",
        "sns://AKIAEXAMPLE/secret/us-east-1/+15551234567": "akiaexample",
    }
    for url, token in tokens.items():
        scheme = url.partition("://")[0]
        assert shown(url) == f"{scheme}://", url
        assert token not in shown(url).lower()
    # a real server's name is still shown
    assert shown("json://localhost:8080/x") == "json://localhost"
    assert shown("json://127.0.0.1:8080/x") == "json://127.0.0.1"
    assert shown("json://[::1]:8080/x") == "json://[::1]"
    assert shown("ntfys://u:p@ntfy.sh/t") == "ntfys://ntfy.sh"
    assert shown("mmost://chat.example.co.uk/token") == "mmost://chat.example.co.uk"


def test_notices_are_forgotten_only_after_anything_they_name_is_gone(db: Path) -> None:
    from gwanjong_gateway.notify.notifier import KEEP_S

    with closing(StrikeStore(db)) as store:
        assert store.claim_notices(["a", "b"], NOON, "me") == ["a", "b"]
        assert store.claim_notices(["a", "c"], NOON + 1, "other") == ["c"]
        assert store.prune_notices(NOON + 365 * 86400 - KEEP_S) == 0  # a year on: kept
        assert store.prune_notices(NOON + 0.5) == 2
        assert store.unclaimed(["a", "b", "c"]) == ["a", "b"]
