"""An inbox that loses nothing (issue 21), through the real SDKs over real HTTP to the
sandbox: every summons listed once, oldest first, however many wait and whatever they are
mixed with; the platform's own failures as error kinds; a bogus cursor refused."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from gwanjong_sandbox.corpus import BASE_TIME
from tests.mcp import call, error_of
from tests.platforms import SPECS
from tests.servers.inbox import drain, paths

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py

PLATFORMS = ["devto", "bluesky", "twitter", "reddit", "mastodon"]
FLOOD = "Inbox summons #"


def before_flood(platform: str, flood: dict[str, Any]) -> str:
    """A cursor each platform accepts that sits just before the flood (which starts a
    minute after BASE_TIME): an id or a time, in the forms its server documents."""
    if platform == "twitter":
        return str(flood["ids"]["twitter"])  # the flood's root post: ours, older than its replies
    if platform == "reddit":
        return f"{BASE_TIME.timestamp():.3f}"
    return BASE_TIME.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def assert_once_oldest_first(listed: list[dict[str, Any]]) -> None:
    # a Reddit thread's summons share its url (where a reply lands): each is its url and words
    seen = [(p["url"], p["body"]) for p in listed]
    assert len(set(seen)) == len(seen), "a summons was listed twice"
    dates = [p["published_at"] for p in listed]
    assert dates == sorted(dates), "not oldest first"


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_every_summons_once_oldest_first_from_a_cursor(
    sandbox: SandboxControl, platform: str
) -> None:
    # 160 summons mixed with 60 items that summon nobody (each platform's own kind), more
    # than one page of the platform's own inbox feed: polled 7 at a time from a cursor.
    flood = sandbox.flood_inbox(160, noise=60)
    async with Client(SPECS[platform].build(sandbox.url)) as client:
        listed = await drain(client, before_flood(platform, flood), limit=7)
    assert [p["body"] for p in listed] == flood["summons"]  # no gap, no repeat, in order
    assert_once_oldest_first(listed)
    assert all(p["tags"] == ["reply"] for p in listed)


#: why each inbox lists a summons (Hacker News has no mentions, only replies)
KINDS = {"bluesky": {"mention", "reply", "quote"}, "hackernews": {"reply"}}


@pytest.mark.parametrize("platform", list(SPECS))
async def test_a_first_poll_starts_at_the_oldest_and_a_restart_loses_nothing(
    sandbox: SandboxControl, platform: str
) -> None:
    spec = SPECS[platform]
    async with Client(spec.build(sandbox.url)) as client:
        seeded = {
            (p["author"], p["body"]) for p in (await call(client, "mentions", limit=100))["posts"]
        }
        # more than a page of each inbox feed; Hacker News reads our 30 latest items only
        flood = sandbox.flood_inbox(*((40, 10) if platform == "hackernews" else (110, 40)))
        oldest = (await call(client, "mentions", limit=100))["posts"]
        first = await call(client, "mentions", limit=7)
    async with Client(spec.build(sandbox.url)) as client:  # a second server: a restart
        rest = await drain(client, first["next_since"], 7)
    listed = first["posts"] + rest
    assert listed[:100] == oldest
    assert_once_oldest_first(listed)
    flooded = [p["body"] for p in listed if p["body"].startswith(FLOOD)]
    assert flooded == flood["summons"]
    assert {(p["author"], p["body"]) for p in listed if not p["body"].startswith(FLOOD)} == seeded
    assert len(listed) == len(seeded) + len(flooded)
    kinds = KINDS.get(platform, {"mention", "reply"})
    for post in listed:
        assert post["author"] != spec.account and len(post["tags"]) == 1, post
        assert post["tags"][0] in kinds, post
    if platform == "mastodon":  # paged by the Link header
        assert paths(sandbox, "mastodon").get("GET /api/v1/notifications", 0) >= 3


@pytest.mark.parametrize("platform", ["bluesky", "twitter"])
async def test_a_backlog_deeper_than_the_page_bound_resumes(
    sandbox: SandboxControl, platform: str
) -> None:
    # 1,050 summons behind the cursor: more than the 10 pages of 100 one call reads. The
    # first answer lists nothing yet and carries the platform's page cursor on.
    flood = sandbox.flood_inbox(1050)
    since = before_flood(platform, flood)
    async with Client(SPECS[platform].build(sandbox.url)) as client:
        first = await call(client, "mentions", since=since, limit=100)
        assert first["posts"] == [] and first["more"] and "|" in first["next_since"]
        # ...which the platform may refuse by then (X's page tokens expire): read on anyway
        sandbox.fault(platform, status=400, match=EMPTY_PAGE[platform][0])
        listed = await drain(client, first["next_since"], limit=100)
    assert [p["body"] for p in listed] == flood["summons"]
    assert_once_oldest_first(listed)


#: a page that holds nothing yet names a next one: Bluesky's AppView drops notifications of
#: muted and blocked accounts after paging, and X says a page may hold fewer than asked
EMPTY_PAGE = {
    "bluesky": ("listNotifications", {"notifications": [], "cursor": "9999-12-31T23:59:59.999Z"}),
    "twitter": ("/mentions", {"meta": {"result_count": 0, "next_token": "7140dibdnow9c7btw30"}}),
}


@pytest.mark.parametrize("platform", list(EMPTY_PAGE))
async def test_an_empty_page_with_a_cursor_is_not_the_end(
    sandbox: SandboxControl, platform: str
) -> None:
    flood = sandbox.flood_inbox(30)
    match, page = EMPTY_PAGE[platform]
    async with Client(SPECS[platform].build(sandbox.url)) as client:
        await call(client, "capabilities")
        sandbox.fault(
            platform,
            status=200,
            match=match,
            body=json.dumps(page),
            content_type="application/json",
        )
        listed = await drain(client, before_flood(platform, flood), limit=7)
    assert [p["body"] for p in listed] == flood["summons"]


async def test_reddit_private_messages_do_not_crowd_out_the_summons(
    sandbox: SandboxControl,
) -> None:
    # /message/inbox's newest page of 100: 98 private messages and 2 summons; 28 more
    # summons on the next page. The server reads the boxes that hold discussions only.
    flood = sandbox.flood_inbox(30, noise=98, noise_last=True)
    async with Client(SPECS["reddit"].build(sandbox.url)) as client:
        listed = await drain(client, before_flood("reddit", flood), limit=7)
    assert [p["body"] for p in listed] == flood["summons"]
    asked = " ".join(paths(sandbox, "reddit"))
    assert "/message/selfreply" in asked and "/message/comments" in asked
    assert "/message/mentions" in asked and "/message/inbox" not in asked
    # (that the emulator's inbox is crowded so: tests/servers/sandbox/test_reddit_emulator.py)


def x_user_problem(detail: str, title: str) -> dict[str, Any]:
    """An X answer holding only an error about user 4200000000, as X words it."""
    problem = {"value": "4200000000", "detail": detail, "title": title, "resource_type": "user"}
    return {
        "errors": [
            problem
            | {
                "parameter": "id",
                "resource_id": "4200000000",
                "type": "https://api.twitter.com/2/problems/resource-not-found",
            }
        ]
    }


SUSPENDED = x_user_problem("User has been suspended: [4200000000].", "Forbidden")
NO_SUCH_USER = x_user_problem("Could not find user with id: [4200000000].", "Not Found Error")


@pytest.mark.parametrize(
    ("answer", "kind", "said"),
    [(SUSPENDED, "auth", "suspended"), (NO_SUCH_USER, "not_found", "Could not find user")],
)
async def test_x_answer_with_only_errors_is_an_error_not_an_empty_inbox(
    sandbox: SandboxControl, answer: dict[str, Any], kind: str, said: str
) -> None:
    async with Client(SPECS["twitter"].build(sandbox.url)) as client:
        await call(client, "capabilities")  # our account is looked up before the fault
        sandbox.fault(
            "twitter",
            status=200,
            match="/mentions",
            body=json.dumps(answer),
            content_type="application/json",
        )
        text = await error_of(client, "mentions")
    assert text.startswith(f"{kind}: ") and said in text, text


BOGUS = {
    "devto": ["zzz", "9999-99-99", "2026-11-27T09:00:00Z,NOT A CODE", "2026-11-27T09:00:00Z|p2"],
    "bluesky": ["zzz", "2026-13-45T99:00:00.000Z", "2026-11-27T09:00:00.000Z,http://x", "a|b"],
    "twitter": ["yesterday", "12ab", "1" * 21, "123|", "\u00b9\u00b2"],
    "reddit": ["last week", "1795770000.0,t9_x", "-5", "1795770000.000,t1_abc|t1_x"],
    "hackernews": ["yesterday", "2026-11-27T09:00:00Z", "2026-11-27T09:00:00Z,abc"],
    "mastodon": ["yesterday", "12ab", "123|", "2026-11-27T09:00:00Z,\u00b9\u00b2"],
}


@pytest.mark.parametrize("platform", list(BOGUS))
async def test_a_malformed_since_is_invalid_input_everywhere(
    sandbox: SandboxControl, platform: str
) -> None:
    async with Client(SPECS[platform].build(sandbox.url)) as client:
        for since in BOGUS[platform]:
            text = await error_of(client, "mentions", since=since)
            assert text.startswith("invalid_input: "), (since, text)
            assert "next_since" in text and "like '" in text, text  # what a valid one looks like
