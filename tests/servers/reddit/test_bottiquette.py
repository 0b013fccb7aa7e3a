"""r/Bottiquette's machine-readable lists (r/Bottiquette/wiki/robots_txt_json), through
asyncpraw over real HTTP to the sandbox, which lists r/typescript as disallowed, r/webdev
as permission, r/devops as posts-only and r/ExperiencedDevs as comments-only."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_reddit.adapter import RedditAdapter
from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.kit.server import build_platform_server
from tests.fakes.clock import FakeClock
from tests.mcp import call, error_of
from tests.platforms import SPECS

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py

SPEC = SPECS["reddit"]
PAGE = "/wiki/robots_txt_json"


@asynccontextmanager
async def server(
    sandbox: SandboxControl, clock: FakeClock | None = None, **env: str
) -> AsyncIterator[Client[Any]]:
    adapter = RedditAdapter(SPEC.settings(sandbox.url, **env), clock=clock or FakeClock())
    async with Client(build_platform_server(adapter)) as client:
        yield client


def page_reads(sandbox: SandboxControl) -> int:
    return sum(n for path, n in sandbox.request_paths().items() if PAGE in path)


async def test_a_reply_in_a_subreddit_that_bans_bots_is_never_sent(
    sandbox: SandboxControl,
) -> None:
    post = sandbox.ids("reddit")["typescript-types"]  # in r/typescript: "disallowed"
    async with server(sandbox) as client:
        check = await call(client, "validate", action="write_comment", post_id=post, body="Hi.")
        text = await error_of(client, "write_comment", post_id=post, body="Hi.")
    assert check["allowed"] == "never" and not check["ok"], check
    assert "r/typescript" in check["problems"][0] and "Bottiquette" in check["problems"][0]
    assert text.startswith("not_supported: ") and "Bottiquette" in text, text
    assert sandbox.writes("reddit") == []


async def test_each_list_decides_its_action(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("reddit")
    post = {"action": "write_post", "title": "A note", "body": "Body."}
    async with server(sandbox, REDDIT_POST_SUBREDDIT="webdev") as client:  # "permission"
        caps = await call(client, "capabilities")
        asking = await call(client, "validate", **post)
        refused = await error_of(client, "write_post", title="A note", body="Body.")
    assert caps["actions"]["write_post"]["allowed"] == "human"
    assert asking["allowed"] == "human" and "moderators" in asking["problems"][0], asking
    assert refused.startswith("not_supported: ") and "A person can do it by hand" in refused
    async with server(sandbox, REDDIT_POST_SUBREDDIT="ExperiencedDevs") as client:
        no_post = await call(client, "validate", **post)  # "comments-only"
        reply = await call(  # ... where a reply is fine
            client, "validate", action="write_comment", post_id=ids["deleted-comments"], body="Hi."
        )
    assert no_post["allowed"] == "never" and "comments-only" in no_post["problems"][0]
    assert reply["allowed"] == "auto" and reply["ok"], reply
    async with server(sandbox, REDDIT_POST_SUBREDDIT="devops") as client:  # "posts-only"
        no_reply = await call(
            client, "validate", action="write_comment", post_id=ids["emoji-post"], body="Hi."
        )
        posted = await call(client, "write_post", title="A note", body="Body.")
    assert no_reply["allowed"] == "never" and "posts-only" in no_reply["problems"][0]
    assert posted["ok"]
    assert [w["action"] for w in sandbox.writes("reddit")] == ["write_post"]


async def test_the_write_itself_checks_the_lists(sandbox: SandboxControl) -> None:
    """No path sends around the lists: the adapter's writes refuse before any write."""
    ids = sandbox.ids("reddit")
    for env, write in (
        ({}, lambda a: a.write_comment(ids["typescript-types"], "Hi.", None)),
        ({}, lambda a: a.write_comment(ids["emoji-post"], "Hi.", None)),
        ({"REDDIT_POST_SUBREDDIT": "typescript"}, lambda a: a.write_post("T", "B", [])),
        ({"REDDIT_POST_SUBREDDIT": "webdev"}, lambda a: a.write_post("T", "B", [])),
    ):
        reddit = RedditAdapter(SPEC.settings(sandbox.url, **env), clock=FakeClock())
        try:
            with pytest.raises(PlatformError) as refused:
                await write(reddit)
        finally:
            await reddit.close()
        assert refused.value.kind is ErrorKind.NOT_SUPPORTED and "Bottiquette" in str(refused.value)
    assert sandbox.writes("reddit") == []


async def test_the_page_is_read_once_a_day(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("reddit")
    clock = FakeClock()
    async with server(sandbox, clock) as client:
        await call(client, "capabilities")
        for key in ("rust-async", "typescript-types", "mcp-servers", "emoji-post"):
            await call(client, "validate", action="write_comment", post_id=ids[key], body="Hi.")
        await call(client, "write_comment", post_id=ids["rust-async"], body="Hi.")
        await call(client, "write_post", title="A note", body="Body.")
        assert page_reads(sandbox) == 1
        clock.advance(24 * 3600)
        await call(client, "validate", action="write_post", title="A note", body="Body.")
    assert page_reads(sandbox) == 2


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (404, None),
        (403, json.dumps({"reason": "private", "message": "Forbidden", "error": 403})),
        (
            200,
            json.dumps(
                {
                    "kind": "wikipage",
                    "data": {"content_md": "bots: please be nice", "revision_by": None},
                }
            ),
        ),
    ],
)
async def test_an_unreadable_page_hands_the_write_to_a_person(
    sandbox: SandboxControl, status: int, body: str | None
) -> None:
    """Neither refused for good nor sent unchecked: a person checks the subreddit's rules."""
    post = sandbox.ids("reddit")["rust-async"]
    fault: dict[str, Any] = {"status": status, "match": PAGE}
    if body is not None:
        fault |= {"body": body, "content_type": "application/json"}
    sandbox.fault("reddit", **fault)
    clock = FakeClock()
    async with server(sandbox, clock) as client:
        check = await call(client, "validate", action="write_comment", post_id=post, body="Hi.")
        text = await error_of(client, "write_comment", post_id=post, body="Hi.")
        assert page_reads(sandbox) == 1  # the failure is kept a while too
        clock.advance(3600)  # then the page is read again
        again = await call(client, "validate", action="write_comment", post_id=post, body="Hi.")
    assert check["allowed"] == "human" and "could not be read" in check["problems"][0], check
    assert text.startswith("not_supported: ") and "could not be read" in text
    assert again["allowed"] == "auto" and again["ok"], again
    assert sandbox.writes("reddit") == []


async def test_reddit_down_is_a_failure_to_retry_not_a_verdict(sandbox: SandboxControl) -> None:
    post = sandbox.ids("reddit")["rust-async"]
    async with server(sandbox, REDDIT_RETRIES="0") as client:
        sandbox.fault("reddit", status=503, match=PAGE)
        text = await error_of(client, "validate", action="write_comment", post_id=post, body="Hi.")
        check = await call(client, "validate", action="write_comment", post_id=post, body="Hi.")
    assert text.startswith("unavailable"), text
    assert check["allowed"] == "auto" and check["ok"], check
