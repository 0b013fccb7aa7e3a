"""The write-once rule of the server kit (kit/once.py), in process: a write's 5xx is raised
as AnswerLost and reported unsure; a read's passes through for the SDK to retry; a repeat of
a write in flight or unsure is held."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx
import pytest
from fastmcp import Client

from gwanjong_sandbox.app import SandboxApp
from gwanjong_sandbox.devto import API_KEY
from gwanjong_sandbox.state import Fault, SandboxState
from gwanjong_shared.contract import CommentList, PostList
from gwanjong_shared.contract.errors import UNSURE, ErrorKind, PlatformError
from gwanjong_shared.contract.models import Comment, Post
from gwanjong_shared.kit.hold import HoldFile
from gwanjong_shared.kit.once import (
    HOLD_S,
    READ_COMMENTS,
    READ_POSTS,
    AnswerLost,
    WriteOnce,
    answer_lost,
    find_written,
    lost_answer,
    lost_in,
    may_resend,
)
from tests.fakes.clock import WALL_START, FakeClock
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import SOCIAL
from tests.mcp import call, error_of

pytestmark = pytest.mark.anyio
ARTICLE = {"article": {"title": "Once", "body_markdown": "once", "ai_disclosure_level": "no_ai"}}


async def test_a_writes_5xx_is_answer_lost_and_a_reads_is_an_answer() -> None:
    state = SandboxState()
    state.faults.append(Fault("devto", kind="apply_then_status", status=502, count=2))
    transport = WriteOnce(httpx.ASGITransport(SandboxApp(state)))
    async with httpx.AsyncClient(transport=transport, base_url="http://sb") as client:
        with pytest.raises(AnswerLost) as lost:
            await client.post("/api/articles", json=ARTICLE, headers={"api-key": API_KEY})
        assert (lost.value.method, lost.value.status) == ("POST", 502)
        assert len(state.writes) == 1  # applied, once
        read = await client.get("/api/articles/search", params={"q": "once"})
        assert read.status_code == 502  # a read's 5xx is the SDK's to retry


def test_the_rule() -> None:
    assert may_resend("get") and may_resend("HEAD") and not may_resend("POST")
    assert not may_resend("PUT") and not may_resend("DELETE")
    assert answer_lost("GET", "/x", status=502) is None
    assert answer_lost("POST", "/x", status=409) is None  # answered: an outcome
    assert answer_lost("POST", "/x", error=OSError(), left=False) is None  # never left
    timed_out = answer_lost("POST", "/x", error=httpx.ReadTimeout("slow"))
    assert timed_out is not None and timed_out.timed_out


def test_lost_answer_is_unsure_and_found_inside_an_sdks_wrapping() -> None:
    lost = AnswerLost("POST", "/api/comment", status=502)
    error = lost_answer("Reddit", lost, "replying")
    assert error.kind in UNSURE and error.kind is ErrorKind.UNAVAILABLE
    assert "may have been written" in error.message and "HTTP 502" in error.message
    assert lost_answer("X", AnswerLost("POST", "/", timed_out=True)).kind is ErrorKind.TIMEOUT

    class Wrapped(Exception):
        def __init__(self, original: BaseException) -> None:
            self.original_exception = original  # asyncprawcore's RequestException

    try:
        try:
            raise Wrapped(lost)
        except Wrapped as inner:
            raise RuntimeError("the SDK's own") from inner
    except RuntimeError as outer:
        assert lost_in(outer) is lost
    assert lost_in(RuntimeError("plain")) is None


async def test_a_repeat_of_a_write_in_flight_or_unsure_is_held_until_read_back() -> None:
    """The same write again: while the first is in flight, or HOLD_S after its answer was
    lost and it does not show in reads, it is refused as unsure, with what to do; after
    that, still not showing, it is sent."""
    world, clock = FakePlatform(SOCIAL, lag=True), FakeClock()
    write = {"title": "", "body": "Held, not sent twice."}
    gate = world.gate("write_post")
    async with Client(world.server(clock=clock)) as client:
        async with anyio.create_task_group() as tg:
            tg.start_soon(lambda: call(client, "write_post", **write))
            await gate.reached.wait()
            assert "under way now" in await error_of(client, "write_post", **write)
            gate.go.set()
        world.land("write_post")
        await error_of(client, "write_post", **write)  # it lands, its answer is lost
        clock.advance(HOLD_S - 1)
        text = await error_of(client, "write_post", **write)
        assert text.startswith("unavailable: ") and "not sent again" in text, text
        assert "read it back with search (not there just now)" in text and "in 1 s" in text
        assert len(world.written()) == 2  # the first, and the one whose answer was lost
        clock.advance(1)
        await call(client, "write_post", **write)
    assert len(world.written()) == 3


def test_two_processes_share_one_hold_file_and_a_restart_keeps_it(tmp_path: Path) -> None:
    """Two processes of one server (two clients) on one file: one takes a write, the other
    is told since when it is held (to read it back first), and so is a server started anew;
    after HOLD_S only one of them takes it to send again."""
    path = tmp_path / "holds" / "fake.db"
    one, two = HoldFile(path), HoldFile(path)
    assert one.take("k", 100.0) is None  # taken: under way (a process dying now leaves it)
    assert two.take("k", 105.0) == 100.0
    assert HoldFile(path).take("k", 106.0) == 100.0  # restarted: still held
    one.hold("k", 110.0)  # its answer was lost then
    assert two.take("k", 300.0, was=110.0) is None  # read back, not found: sent again
    assert one.take("k", 300.5, was=110.0) == 300.0  # the other one took it first
    two.hold("k", None)  # its answer came
    assert one.take("k", 301.0) is None


def test_a_hold_file_that_cannot_be_used_refuses_the_write(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(PlatformError) as refused:
        HoldFile(tmp_path / "file" / "fake.db", "FAKE_HOLD_FILE").take("k", 1.0)
    assert refused.value.kind is ErrorKind.UNAVAILABLE
    assert "nothing was sent" in refused.value.message and "FAKE_HOLD_FILE" in refused.value.message


@pytest.mark.parametrize(
    ("accounts", "published", "found"),
    [
        ([None], None, "No account of ours"),  # no account known: nobody's, nor absent
        ([None, "Someone"], None, True),
        (["someone"], "2027-01-08T08:00:00Z", "Only an earlier .* none since"),  # last week's
        (["someone"], "2027-01-15T07:51:00.000Z", True),  # 9 min before: clocks differ
        (["someone"], "2027-01-15T17:00:01.123456789+09:00", True),  # after, another zone
        (["someone"], "last week", True),  # no readable time: never lost wins
        (["another"], None, False),  # the whole (short) listing read: absent
    ],
)
async def test_a_write_is_read_back_as_ours_and_published_since_it_was_sent(
    accounts: list[str | None], published: str | None, found: bool | str
) -> None:
    """Without our account, a post of someone else's with the same words is not ours (the
    gateway settled it `posted` once: its read-back matched anyone's when none was known),
    and its absence tells nothing either. Nor is our post of last week with a recurring
    title, or our comment under the post that opened the same way: only what was published
    since the write was sent counts, and with only such an earlier one the read-back cannot
    tell."""
    words = {"author": "someone", "body": "Same words.", "published_at": published}
    post = Post(id="9", platform="devto", title="Hi", **words)
    comment = Comment(id="8", platform="devto", post_id="p", **words)

    async def search(query: str, limit: int) -> PostList:
        return PostList(posts=[post])

    async def comments(post_id: str, limit: int) -> CommentList:
        return CommentList(comments=[comment])

    for target in (None, "p"):
        read = find_written(comments, search, target, "Hi", "Same words.", accounts, WALL_START)
        if isinstance(found, str):  # neither absent (sent twice) nor found (lost): a person's
            with pytest.raises(PlatformError, match=found) as raised:
                await read
            assert raised.value.kind is ErrorKind.UNAVAILABLE
            assert "It was not sent again; a person must check" in raised.value.message
        else:
            assert ((await read) is not None) is found, target


@pytest.mark.parametrize("target", [None, "p"], ids=["post", "comment"])
@pytest.mark.parametrize("others", [READ_POSTS - 1, READ_COMMENTS - 1, READ_COMMENTS + 200])
async def test_a_write_not_in_a_full_listing_is_not_told_absent(
    target: str | None, others: int
) -> None:
    """A busy thread (over the 1,000 comments read back) or a search whose 50 results are
    all others' posts with the same words: our write may lie beyond what was read, and
    absent would send it again. Only a listing shorter than asked (the platform had no
    more) tells it absent; a platform that lists fewer per page than asked must page on."""
    when = "2027-01-15T09:00:00Z"
    posts = [
        Post(
            id=str(i),
            platform="reddit",
            title="Hi",
            author="a",
            body="Same words.",
            published_at=when,
        )
        for i in range(others)
    ]
    thread = [
        Comment(
            id=str(i),
            platform="reddit",
            post_id="p",
            author="a",
            body="Same words.",
            published_at=when,
        )
        for i in range(others)
    ]

    async def search(query: str, limit: int) -> PostList:
        return PostList(posts=posts[:limit])

    async def comments(post_id: str, limit: int) -> CommentList:
        return CommentList(comments=thread[:limit], more=len(thread) > limit)

    read = find_written(comments, search, target, "Hi", "Same words.", ["us"], WALL_START)
    if others < (READ_POSTS if target is None else READ_COMMENTS):
        assert await read is None  # all of it read: not there
        return
    with pytest.raises(PlatformError, match=r"None of ours is among the first \d+ ") as raised:
        await read
    assert raised.value.kind is ErrorKind.UNAVAILABLE
    assert "not sent again; a person must check the account's posts" in raised.value.message


@pytest.mark.parametrize("target", [None, "p"], ids=["post", "comment"])
async def test_a_short_listing_that_left_branches_unread_is_not_told_absent(
    target: str | None,
) -> None:
    """Fewer comments or search results than asked, but the platform said more lie beyond
    them (Reddit's "more" stubs the bounded walk did not load, a search that stopped at its
    page cap): a write of ours may be in them."""

    async def comments(post_id: str, limit: int) -> CommentList:
        return CommentList(comments=[], more=True)

    async def search(query: str, limit: int) -> PostList:
        return PostList(posts=[], more=True)

    read = find_written(comments, search, target, "", "Same words.", ["us"], WALL_START)
    with pytest.raises(PlatformError, match=r"None of ours is among the first 0 ") as raised:
        await read
    assert raised.value.kind is ErrorKind.UNAVAILABLE
