"""Reddit specifics the contract suite cannot see, through asyncpraw over real HTTP to the
sandbox: code-point limits with emoji/Korean/URLs, "more" and "continue this thread" stubs,
errors Reddit sends with HTTP 200, the x-ratelimit budget, retries, token reuse and
refresh, read-only mode and the host allow-list (the request timeout: the contract's hang)."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from asyncpraw.exceptions import RedditAPIException
from fastmcp import Client

from gwanjong_reddit.adapter import RedditAdapter
from gwanjong_reddit.failures import retry_after
from gwanjong_sandbox.control import SandboxControl
from gwanjong_sandbox.corpus import build_corpus
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.text import graphemes
from gwanjong_shared.kit.host_gate import HostNotAllowed
from gwanjong_shared.kit.once import HOLD_S
from gwanjong_shared.kit.server import build_platform_server
from tests.fakes.clock import FakeClock
from tests.mcp import call, error_of
from tests.platforms import SPECS

LIVE_THREADS = sum(1 for thread in build_corpus() if not thread.deleted)
pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py

SPEC = SPECS["reddit"]  # via the registry: importing the spec module first is circular


@asynccontextmanager
async def adapter(sandbox: SandboxControl, **overrides: str) -> AsyncIterator[RedditAdapter]:
    """The adapter on its own, with ``REDDIT_``-less overrides (``MAX_WAIT_S="1"``)."""
    env = {f"REDDIT_{k}": v for k, v in overrides.items()}
    reddit = RedditAdapter(SPEC.settings(sandbox.url, **env))
    await reddit.connect()
    try:
        yield reddit
    finally:
        await reddit.close()


@asynccontextmanager
async def server(sandbox: SandboxControl, **overrides: str) -> AsyncIterator[Client[Any]]:
    env = {f"REDDIT_{k}": v for k, v in overrides.items()}
    async with Client(SPEC.build(sandbox.url, **env)) as client:
        yield client


def requests(sandbox: SandboxControl) -> int:
    return sandbox.requests().get("reddit", 0)


def mixed(length: int) -> str:
    """Exactly ``length`` code points of Korean, a ZWJ emoji (3 code points) and a URL."""
    unit = "한국어 👩‍💻 https://example.com/a?b=é "
    return (unit * (length // len(unit) + 1))[:length]


# -- limits: Reddit counts code points ---------------------------------------------------


@pytest.mark.parametrize(
    ("action", "field", "limit"),
    [
        ("write_post", "title", 300),
        ("write_post", "body", 40_000),
        ("write_comment", "body", 10_000),
    ],
)
async def test_validate_counts_code_points_at_max_and_max_plus_one(
    sandbox: SandboxControl, action: str, field: str, limit: int
) -> None:
    ids = sandbox.ids("reddit")
    async with server(sandbox) as client:
        for length, fits in ((limit, True), (limit + 1, False)):
            text = mixed(length)
            args: dict[str, Any] = {"action": action, "body": "Body.", "title": "Title"}
            args[field] = text
            if action == "write_comment":
                args["post_id"] = ids["rust-async"]
            result = await call(client, "validate", **args)
            assert graphemes(text) < length  # the emoji is 3 code points, 1 grapheme
            if field == "body":
                assert result["length"] == {"used": length, "max": limit, "unit": "chars"}
            assert result["ok"] is fits, result
            over = [p for p in result["problems"] if f"allows {limit}" in p]
            assert bool(over) is not fits


async def test_the_sandbox_counts_the_same_way(sandbox: SandboxControl) -> None:
    """What validate accepts, Reddit accepts; one more code point is its TOO_LONG."""
    ids = sandbox.ids("reddit")
    async with adapter(sandbox) as reddit:
        title, body = mixed(300), mixed(40_000)
        result = await reddit.write_post(title, body, [])
        assert (
            result.ok
            and result.id
            and result.url == f"https://www.reddit.com/r/test/comments/{result.id}/"
        )
        writes = sandbox.writes("reddit")
        assert writes[0]["data"]["title"] == title and writes[0]["data"]["body"] == body

        with pytest.raises(PlatformError) as too_long:
            await reddit.write_post(mixed(301), "fine", [])
        assert too_long.value.kind is ErrorKind.INVALID_INPUT
        assert "TOO_LONG" in str(too_long.value) and "max: 300" in str(too_long.value)

        comment = await reddit.write_comment(ids["rust-async"], mixed(10_000), None)
        assert comment.ok and comment.id
        with pytest.raises(PlatformError) as comment_too_long:
            await reddit.write_comment(ids["rust-async"], mixed(10_001), None)
        assert comment_too_long.value.kind is ErrorKind.INVALID_INPUT
        assert "max: 10000" in str(comment_too_long.value)
    assert [w["action"] for w in sandbox.writes("reddit")] == ["write_post", "write_comment"]


# -- comments: stubs, order, deleted ---------------------------------------------------


async def test_huge_thread_needs_morechildren_and_keeps_thread_order(
    sandbox: SandboxControl,
) -> None:
    ids = sandbox.ids("reddit")
    async with adapter(sandbox) as reddit:
        await reddit.get_post(ids["huge"])  # the token, so the counts below are the walk only
        before = requests(sandbox)
        everything = await reddit.get_comments(ids["huge"], 1000)
        used = requests(sandbox) - before
        assert len(everything) == 500 and len({c.id for c in everything}) == 500
        assert used > 2, "the first page has 200 comments; the rest come from /api/morechildren"
        seen: dict[str, int] = {}
        for c in everything:
            if c.parent_id is None:
                assert c.depth == 0
            else:
                assert seen[c.parent_id] == c.depth - 1, "a reply follows its parent"
            seen[c.id] = c.depth
        assert max(seen.values()) == 5
        # Loading stubs where the walk meets them: a smaller limit is a prefix of the whole.
        some = await reddit.get_comments(ids["huge"], 250)
        assert [c.id for c in some] == [c.id for c in everything[:250]]


async def test_without_morechildren_only_the_first_page_arrives(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("reddit")
    async with adapter(sandbox, MORE_REQUESTS="0") as reddit:
        mine = await reddit.write_comment(ids["huge"], "A new 1-point reply.", None)
        comments = await reddit.get_comments(ids["huge"], 1000)
    assert len(comments) == 200  # the sandbox's page; the stubs were not followed
    # newest first: the gateway's read-back of a lost write finds it however big the thread
    assert mine.id in [c.id for c in comments]


async def test_continue_this_thread_below_depth_ten(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("reddit")
    post = ids["empty-thread"]
    async with adapter(sandbox) as reddit:
        chain: list[str] = []
        for level in range(13):
            result = await reddit.write_comment(
                post, f"level {level}", chain[-1] if chain else None
            )
            assert result.id
            chain.append(result.id)
        comments = await reddit.get_comments(post, 50)
    assert [c.id for c in comments] == chain
    assert [c.depth for c in comments] == list(range(13))
    assert [c.parent_id for c in comments] == [None, *chain[:-1]]
    assert comments[12].body == "level 12"


async def test_reply_to_a_comment_lands_under_it(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("reddit")
    async with server(sandbox) as client:
        before = (await call(client, "get_comments", post_id=ids["mcp-servers"]))["comments"]
        parent = next(c for c in before if "in-memory" in c["body"])
        result = await call(
            client,
            "write_comment",
            post_id=ids["mcp-servers"],
            body="Same <split> & here: 🧪 in-memory first.",
            parent_id=parent["id"],
        )
        after = (await call(client, "get_comments", post_id=ids["mcp-servers"]))["comments"]
    mine = next(c for c in after if c["id"] == result["id"])
    assert mine["parent_id"] == parent["id"] and mine["depth"] == parent["depth"] + 1
    # asyncprawcore always asks for raw_json=1, so no &amp; comes back.
    assert mine["author"] == "gwanjong_bot"
    assert mine["body"] == "Same <split> & here: 🧪 in-memory first."
    assert result["url"].startswith("https://www.reddit.com/r/Python/comments/")
    assert sandbox.writes("reddit")[0]["target"] == f"t1_{parent['id']}"


async def test_reply_targets_are_checked(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("reddit")
    async with adapter(sandbox) as reddit:
        rust = await reddit.get_comments(ids["rust-async"], 10)
        with pytest.raises(PlatformError) as elsewhere:  # a comment from another thread
            await reddit.write_comment(ids["mcp-servers"], "hi", rust[0].id)
        assert elsewhere.value.kind is ErrorKind.NOT_FOUND
        deleted = next(
            c
            for c in await reddit.get_comments(ids["deleted-comments"], 10)
            if c.body == "[removed]"
        )
        with pytest.raises(PlatformError) as gone:  # Reddit's HTTP 200 DELETED_COMMENT
            await reddit.write_comment(ids["deleted-comments"], "hi", deleted.id)
        assert gone.value.kind is ErrorKind.NOT_FOUND and "DELETED_COMMENT" in str(gone.value)
        with pytest.raises(PlatformError) as bad:
            await reddit.write_comment(ids["mcp-servers"], "hi", "not a comment id")
        assert bad.value.kind is ErrorKind.INVALID_INPUT
    assert sandbox.writes("reddit") == []


async def test_a_reply_under_a_locked_comment_is_refused_with_the_reason(
    sandbox: SandboxControl,
) -> None:
    post = sandbox.ids("reddit")["deleted-comments"]
    async with adapter(sandbox) as reddit:
        comments = await reddit.get_comments(post, 10)
        [locked] = [c for c in comments if c.raw and c.raw["locked"]]  # Reddit's flag
        assert locked.body == "Please keep it civil."
        with pytest.raises(RedditAPIException) as wire:  # what Reddit answers, with HTTP 200
            await (await reddit.api.reddit().comment(locked.id)).reply("Agreed.")
        assert [wire.value.items[0].error_type, wire.value.items[0].field] == [
            "THREAD_LOCKED",
            "parent",
        ]
    before = sandbox.request_paths()
    async with server(sandbox) as client:
        text = await error_of(
            client, "write_comment", post_id=post, body="Agreed.", parent_id=locked.id
        )
    assert text.startswith("not_supported: ") and "comment is locked" in text, text
    assert "Nothing was sent" in text, text
    sent = {k: v for k, v in sandbox.request_paths().items() if "/api/comment" in k}
    assert sent == {k: v for k, v in before.items() if "/api/comment" in k}  # never tried
    assert sandbox.writes("reddit") == []


# -- errors that arrive with HTTP 200 ----------------------------------------------------


async def test_ratelimit_api_error_becomes_rate_limited_in_seconds(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("reddit")
    async with adapter(sandbox) as reddit:
        for i in range(25):  # the sandbox's per-account throttle: 25 writes per 10 minutes
            await reddit.write_comment(ids["summons-me"], f"note {i}", None)
        with pytest.raises(PlatformError) as limited:
            await reddit.write_comment(ids["summons-me"], "one too many", None)
    # "Take a break for 10 minutes" is longer than REDDIT_RATELIMIT_SECONDS: reported, not slept.
    assert str(limited.value).startswith("rate_limited retry_after=600: ")
    assert limited.value.retry_after == 600
    assert len(sandbox.writes("reddit")) == 25


async def test_unknown_post_subreddit_is_not_found(sandbox: SandboxControl) -> None:
    async with server(sandbox, POST_SUBREDDIT="no_such_sub_here") as client:
        text = await error_of(client, "write_post", title="Hello", body="A short post.")
    assert text.startswith("not_found: ") and "SUBREDDIT_NOEXIST" in text
    assert sandbox.writes("reddit") == []


async def test_no_post_subreddit_is_a_validate_problem(sandbox: SandboxControl) -> None:
    async with server(sandbox, POST_SUBREDDIT="") as client:
        check = await call(client, "validate", action="write_post", title="Hi", body="There.")
        assert check["ok"] is False and any("REDDIT_POST_SUBREDDIT" in p for p in check["problems"])
        text = await error_of(client, "write_post", title="Hi", body="There.")
    assert text.startswith("invalid_input: ") and "REDDIT_POST_SUBREDDIT" in text
    assert sandbox.writes("reddit") == []


# -- the rate-limit budget and retries --------------------------------------------------


async def test_a_short_window_is_waited_out(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("reddit")
    async with adapter(sandbox) as reddit:  # MAX_WAIT_S defaults to 10
        await reddit.get_post(ids["rust-async"])
        sandbox.fault("reddit", status=429, retry_after=1, count=1)
        with pytest.raises(PlatformError) as limited:
            await reddit.get_post(ids["rust-async"])
        assert str(limited.value).startswith("rate_limited retry_after=1: ")
        started = time.monotonic()
        post = await reddit.get_post(ids["rust-async"])
        assert post.id == ids["rust-async"]
        assert time.monotonic() - started >= 0.9  # asyncprawcore slept for the window
        assert reddit.gate.rate_limit.limit == 1000
        assert reddit.gate.rate_limit.remaining is not None and reddit.gate.rate_limit.remaining > 0


@pytest.mark.parametrize(
    ("retries", "status", "failures", "sent"),
    [(None, 503, 2, 3), (None, 503, 3, 3), ("0", 500, 1, 1)],  # None: the default, 2
    ids=["retried-twice", "then-unavailable", "retries-off"],
)
async def test_5xx_is_retried_as_configured(
    sandbox: SandboxControl, retries: str | None, status: int, failures: int, sent: int
) -> None:
    ids = sandbox.ids("reddit")
    async with adapter(sandbox, **({"RETRIES": retries} if retries else {})) as reddit:
        await reddit.get_post(ids["rust-async"])
        sandbox.fault("reddit", status=status, count=failures)
        before = requests(sandbox)
        if failures < sent:  # a retry met the platform back
            assert (await reddit.get_post(ids["rust-async"])).id == ids["rust-async"]
        else:
            with pytest.raises(PlatformError) as failed:
                await reddit.get_post(ids["rust-async"])
            assert failed.value.kind is ErrorKind.UNAVAILABLE
            assert str(failed.value).startswith("unavailable: ") and str(status) in str(
                failed.value
            )
        assert requests(sandbox) - before == sent


# -- sessions and credentials ------------------------------------------------------------


async def test_one_token_serves_every_call(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("reddit")
    async with adapter(sandbox) as reddit:
        start = requests(sandbox)
        caps = await reddit.capabilities()
        assert caps.account == "gwanjong_bot" and caps.configured
        assert caps.destination == "r/test"  # REDDIT_POST_SUBREDDIT: a person approves it
        # the token, /api/v1/me, r/Bottiquette's lists (for write_post in r/test)
        assert requests(sandbox) - start == 3
        for key in ("rust-async", "korean-dev", "emoji-post"):
            await reddit.get_post(ids[key])
        await reddit.capabilities()  # the account and the lists are remembered
        assert requests(sandbox) - start == 6


async def test_an_expired_token_is_renewed(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("reddit")
    async with adapter(sandbox) as reddit:
        await reddit.get_post(ids["rust-async"])
        sandbox.reset()  # the sandbox forgets its tokens: the next call gets 401 invalid_token
        before = requests(sandbox)
        assert (await reddit.get_post(ids["rust-async"])).id == ids["rust-async"]
        assert requests(sandbox) - before == 3  # 401, a new token, the retried call


async def test_read_only_mode_reads_and_refuses_writes(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("reddit")
    async with server(sandbox, USERNAME="", PASSWORD="") as client:
        posts = (await call(client, "trending", limit=3))["posts"]
        assert len(posts) == 3
        caps = await call(client, "capabilities")
        assert caps["configured"] is False and caps["account"] is None
        for tool, args in (
            ("write_post", {"title": "Hi", "body": "There."}),
            ("write_comment", {"post_id": ids["rust-async"], "body": "Hi."}),
        ):
            text = await error_of(client, tool, **args)
            assert text.startswith("auth: ") and "REDDIT_USERNAME" in text
    assert sandbox.writes("reddit") == []


async def test_user_agent_follows_reddits_format(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("reddit")
    async with adapter(sandbox) as reddit:
        await reddit.write_comment(ids["summons-me"], "Thanks for the mention!", None)
    agent = sandbox.writes("reddit")[0]["data"]["user_agent"]
    assert re.match(
        r"^python:gwanjong-reddit:\d+\.\d+\.\d+ \(by /u/gwanjong_bot\) Async PRAW/", agent
    )


async def test_only_the_configured_hosts_are_contacted(sandbox: SandboxControl) -> None:
    async with adapter(sandbox) as reddit:
        assert reddit.gate.hosts.patterns == frozenset({"127.0.0.1"})
        requestor = reddit._client().requestor
        with pytest.raises(HostNotAllowed):
            async with requestor.request("GET", "https://www.reddit.com/api/v1/me"):
                pass  # pragma: no cover - never reached


# -- reads -------------------------------------------------------------------------------


async def test_trending_reads_the_configured_subreddits(sandbox: SandboxControl) -> None:
    async with adapter(sandbox, SUBREDDITS="r/rust") as reddit:
        posts = await reddit.get_trending(10)
    assert posts and {p.tags[0] for p in posts} == {"rust"}
    async with adapter(sandbox, SUBREDDITS="popular") as reddit:
        assert len(await reddit.get_trending(20)) == LIVE_THREADS  # every live corpus thread
    async with adapter(sandbox, SUBREDDITS="no_such_subreddit") as reddit:
        with pytest.raises(PlatformError) as missing:
            await reddit.get_trending(5)
    assert missing.value.kind is ErrorKind.NOT_FOUND and "REDDIT_SUBREDDITS" in str(missing.value)


async def test_search_scope(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("reddit")
    async with adapter(sandbox) as reddit:
        everywhere = {p.id for p in await reddit.search("async", 20)}
        assert {ids["rust-async"], ids["korean-dev"]} <= everywhere
        assert await reddit.search("kubernetes helm", 20) == []
    async with adapter(sandbox, SEARCH_SCOPE="subreddits", SUBREDDITS="rust") as reddit:
        assert {p.id for p in await reddit.search("async", 20)} == {ids["rust-async"]}
        # our own post in REDDIT_POST_SUBREDDIT (r/test): how an unsure write is read back
        posted = await reddit.write_post("Quokka ledger notes", "Found again.", [])
        assert posted.id in {p.id for p in await reddit.search("Quokka ledger notes", 20)}


async def test_post_ids_in_every_form(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("reddit")
    sid = ids["rust-async"]
    async with adapter(sandbox) as reddit:
        post = await reddit.get_post(sid)
        assert (
            post.url
            == f"https://www.reddit.com/r/rust/comments/{sid}/rust_async_cancellation_is_harder_than_it_looks/"
        )
        assert post.tags == ["rust"] and post.likes == 321 and post.comments_count == 4
        assert post.published_at is not None and post.published_at.endswith("Z")
        assert (await reddit.get_post(f"t3_{sid}")).id == sid
        assert (await reddit.get_post(post.url)).id == sid
        before = requests(sandbox)
        for bad in ("not an id!", f"t1_{sid}x!", "https://example.com/nothing"):
            with pytest.raises(PlatformError) as wrong:
                await reddit.get_post(bad)
            assert wrong.value.kind is ErrorKind.INVALID_INPUT
        assert requests(sandbox) == before  # refused before any request


async def test_rules_say_why(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("reddit")
    async with server(sandbox) as client:
        caps = await call(client, "capabilities")
        assert "Bottiquette" in caps["actions"]["write_comment"]["reason"]
        assert "vote manipulation" in caps["actions"]["upvote"]["reason"]
        assert caps["limits"] == {
            "title": {"max": 300, "unit": "chars"},
            "body": {"max": 40000, "unit": "chars"},
            "comment": {"max": 10000, "unit": "chars"},
        }
        text = await error_of(client, "upvote", post_id=ids["rust-async"])
    assert text.startswith("not_supported: ") and "programmatic" in text
    assert sandbox.writes("reddit") == []


async def test_inbox_points_at_the_thread_a_reply_lands_on(sandbox: SandboxControl) -> None:
    async with server(sandbox) as client:
        posts = (await call(client, "mentions"))["posts"]
    ids = sandbox.ids("reddit")
    replies = [p for p in posts if p["tags"] == ["reply"]]
    mentions = [p for p in posts if p["tags"] == ["mention"]]
    assert len(replies) == 2 and all(p["id"] == ids["my-post"] for p in replies)
    [mention] = mentions  # a comment naming u/gwanjong_bot in someone else's thread
    assert mention["id"] == ids["llm-agents"] and "u/gwanjong_bot" in mention["body"]
    for p in posts:  # the thread's link, as a person approving a reply to it is shown
        assert p["url"].startswith("https://www.reddit.com/r/") and p["url"].endswith("/")
        assert p["url"].split("/")[-4:-2] == ["comments", p["id"]], p["url"]


@pytest.mark.parametrize(
    ("key", "why"),
    [
        ("locked-thread", "locked"),
        ("archived-thread", "archived"),
        ("removed-thread", "taken down"),
    ],
)
async def test_a_thread_closed_to_comments_is_refused_with_the_reason(
    sandbox: SandboxControl, key: str, why: str
) -> None:
    # Reddit refuses a reply in a locked or archived thread, and takes one in a thread its
    # moderators removed, which the subreddit's moderation forbids all the same.
    post = sandbox.ids("reddit")[key]
    async with server(sandbox) as client:
        check = await call(client, "validate", action="write_comment", post_id=post, body="Hi.")
        text = await error_of(client, "write_comment", post_id=post, body="Hi.")
    assert check["allowed"] == "never" and why in check["problems"][0], check
    assert text.startswith("not_supported: ") and why in text, text
    assert sandbox.writes("reddit") == []


def test_a_proxys_inf_names_no_wait() -> None:
    assert retry_after({"retry-after": "inf", "x-ratelimit-reset": "12"}) == 12.0


async def test_a_lost_post_search_has_not_indexed_is_read_back_from_our_profile(
    sandbox: SandboxControl,
) -> None:
    """Reddit's search lists a new post minutes late (never one its spam filter holds), as
    the sandbox does: a post whose answer was lost, repeated by the model past the hold, was
    read back by search alone, found absent and sent a second time. Our own submissions
    list it at once."""
    clock = FakeClock(wall=time.time())  # the sandbox stamps its posts with the real time
    write = {"title": "Indexed late", "body": "Sent once, found at once."}
    built = build_platform_server(RedditAdapter(SPEC.settings(sandbox.url)), wall=clock.time)
    async with Client(built) as client:
        sandbox.fault("reddit", "apply_then_status", status=502, method="POST", match="/api/submit")
        await error_of(client, "write_post", **write)
        clock.advance(HOLD_S)
        again = await call(client, "write_post", **write)
        found = (await call(client, "search", query="indexed late"))["posts"]
    [post] = [w for w in sandbox.writes("reddit") if w["action"] == "write_post"]
    assert again["id"] == post["data"]["id"] == found[0]["id"], (again, found)


async def test_a_lost_reply_in_a_branch_the_walk_left_unread_is_not_sent_again(
    sandbox: SandboxControl,
) -> None:
    """A reply to a comment beyond the thread's first page lands under it, in a "more" stub
    the bounded walk (REDDIT_MORE_REQUESTS) never loads: the read-back of a reply whose answer
    was lost read fewer comments than asked, took that for all there is, and sent it again."""
    ids = sandbox.ids("reddit")
    async with adapter(sandbox) as reddit:
        whole = await reddit.get_comments(ids["huge"], 1000)
    parent = whole[-1].id  # past the first page: only /api/morechildren brings it
    clock = FakeClock(wall=time.time())  # the sandbox stamps its comments with the real time
    settings = SPEC.settings(sandbox.url, REDDIT_MORE_REQUESTS="0")
    built = build_platform_server(RedditAdapter(settings), wall=clock.time)
    reply = {"post_id": ids["huge"], "body": "Under a comment far down.", "parent_id": parent}
    async with Client(built) as client:
        sandbox.fault(
            "reddit", "apply_then_status", status=502, method="POST", match="/api/comment"
        )
        await error_of(client, "write_comment", **reply)
        listed = await call(client, "get_comments", post_id=ids["huge"], limit=1000)
        clock.advance(HOLD_S)
        again = await client.call_tool("write_comment", reply, raise_on_error=False)
    assert len([w for w in sandbox.writes("reddit") if w["action"] == "write_comment"]) == 1
    assert again.is_error and "a person must check" in again.content[0].text  # type: ignore[union-attr]
    assert listed["more"] is True and len(listed["comments"]) < 1000
