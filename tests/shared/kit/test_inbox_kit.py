"""The server kit's inbox paging (gwanjong_shared.kit.inbox) on scripted pages: the
oldest unseen first, the cursor at the newest handed out, the bounds."""

from __future__ import annotations

import pytest

from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.models import Post
from gwanjong_shared.kit.inbox import (
    Cursor,
    Key,
    Page,
    hand_out,
    key_text,
    parse_cursor,
    read_back,
)

pytestmark = pytest.mark.anyio


def _key(n: int) -> Key:
    return (f"{n:06d}", f"id{n}")


def _post(n: int) -> Post:
    return Post(id=str(n), platform="devto", body=f"#{n}")


class Feed:
    """A newest-first feed of ``size`` items, ``page`` a page, cursors = offsets."""

    def __init__(self, size: int, page: int = 10, repeat_at: str | None = None) -> None:
        self.items = list(range(size, 0, -1))
        self.page = page
        self.repeat_at = repeat_at
        self.reads = 0

    async def __call__(self, token: str | None) -> Page[Post]:
        self.reads += 1
        start = int(token or 0)
        chunk = self.items[start : start + self.page]
        nxt = str(start + self.page) if start + self.page < len(self.items) else None
        if self.repeat_at is not None and token == self.repeat_at:
            nxt = token  # a platform that hands the same cursor back
        keyed = [(_key(n), _post(n)) for n in chunk]
        return Page(keyed, nxt, min((k for k, _ in keyed), default=None))


def _parse(text: str) -> Key | None:
    when, _, ident = text.partition(",")
    return (when, ident) if when.isdigit() and ident else None


async def _drain(feed: Feed, since: str | None, limit: int, max_pages: int) -> list[int]:
    out: list[int] = []
    for _ in range(500):
        cursor = parse_cursor(since, _parse, "000001,id1")
        listed = hand_out(
            await read_back(feed, cursor, max_pages=max_pages), cursor, limit, key_text
        )
        out += [int(p.id) for p in listed.posts]
        if not listed.posts and not listed.more:
            return out
        since = listed.next_since or since
    raise AssertionError("never finished")


async def test_every_item_once_oldest_first_from_a_cursor() -> None:
    feed = Feed(95)
    assert await _drain(feed, key_text(_key(12)), limit=7, max_pages=20) == list(range(13, 96))


async def test_a_backlog_deeper_than_the_bound_resumes_and_loses_nothing() -> None:
    feed = Feed(100)  # 10 pages of 10 behind the cursor, 3 pages read per call
    for limit in (1, 7, 30):
        assert await _drain(feed, key_text(_key(0)), limit, max_pages=3) == list(range(1, 101))


async def test_a_first_poll_starts_at_the_oldest_of_one_bounded_read() -> None:
    feed = Feed(100)
    cursor = Cursor(None)
    listed = hand_out(await read_back(feed, cursor, max_pages=3), cursor, 5, key_text)
    assert [int(p.id) for p in listed.posts] == [71, 72, 73, 74, 75] and listed.more
    assert listed.next_since == key_text(_key(75))


async def test_a_repeated_platform_cursor_ends_the_read() -> None:
    feed = Feed(100, repeat_at="20")
    back = await read_back(feed, Cursor(None))
    assert feed.reads == 3 and back.resume is None and len(back.found) == 30


def test_a_malformed_cursor_says_what_a_valid_one_looks_like() -> None:
    for bad in ("zzz", "000001,id1|", "000001,id1|a b", ""):
        with pytest.raises(PlatformError) as caught:
            parse_cursor(bad, _parse, "000001,id1")
        assert (
            caught.value.kind is ErrorKind.INVALID_INPUT and "'000001,id1'" in caught.value.message
        )
    assert parse_cursor("000001,id1|20", _parse, "x") == Cursor(("000001", "id1"), "20")


def test_a_platform_that_never_resumes_refuses_a_resume_part() -> None:
    with pytest.raises(PlatformError) as caught:
        parse_cursor("000001,id1|20", _parse, "000001,id1", resumable=False)
    assert caught.value.kind is ErrorKind.INVALID_INPUT and "'000001,id1'" in caught.value.message
    assert parse_cursor("000001,id1", _parse, "x", resumable=False) == Cursor(("000001", "id1"))
