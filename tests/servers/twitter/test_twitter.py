"""What the contract suite cannot see about the X server: weighted limits at the edge, the
summoned-reply rule before any request, the twikit fallback, X's rate-limit headers.

Everything runs the real server (in-memory MCP) with the real tweepy and twikit over real HTTP
against the sandbox.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import aiohttp
import httpx
import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.kit.host_gate import HostNotAllowed
from gwanjong_shared.kit.hosted import settings_from_env
from gwanjong_shared.kit.ratelimit import Limiter
from gwanjong_twitter.adapter import TwitterAdapter
from gwanjong_twitter.redirect import API_HOSTS, AiohttpGate, web_gate
from gwanjong_twitter.server import Settings, hosted
from gwanjong_twitter.web import no_console
from gwanjong_twitter.weighted import weighted_length
from tests.mcp import call, error_of
from tests.platforms import SPECS  # first: it loads every spec (tests.specs.twitter included)
from tests.specs.twitter import AI_REPLIES, READERS, TWIKIT, unapproved

SPEC = SPECS["twitter"]

pytestmark = pytest.mark.anyio


def counts(sandbox: SandboxControl) -> tuple[int, int]:
    seen = sandbox.requests()
    return seen.get("twitter", 0), seen.get("twikit", 0)


# -- weighted length at the limit -----------------------------------------------------------

URL = "https://github.com/gwanjong/gwanjong/blob/main/servers/twitter/README.md"  # counts 23
EDGE_TEXTS = {
    # 23 (URL) + 1 (space) + 6 x 2 (emoji incl. a ZWJ sequence and a flag) + 1 + 120 x 2 (Hangul) + 3 = 280
    "url-emoji-korean": f"{URL} 🚀🔥👩‍💻🇰🇷🏳️‍🌈😌 " + "한" * 120 + "abc",
    # 3 URLs (69) + 3 spaces + 208 Latin = 280
    "three-urls": f"{URL} https://x.com/a {URL} " + "x" * 208,
}


@pytest.mark.parametrize("name", list(EDGE_TEXTS))
async def test_weighted_length_at_280_and_281(sandbox: SandboxControl, name: str) -> None:
    text = EDGE_TEXTS[name]
    assert weighted_length(text) == 280
    async with Client(SPEC.build(sandbox.url)) as client:
        ids = sandbox.ids("twitter")
        for action, target in (("write_post", None), ("write_comment", ids["summons-me"])):
            at_max = await call(client, "validate", action=action, body=text, post_id=target)
            assert at_max["ok"] is True, at_max
            assert at_max["length"] == {"used": 280, "max": 280, "unit": "weighted_chars"}
            over = await call(client, "validate", action=action, body=text + "!", post_id=target)
            assert over["ok"] is False
            assert over["length"]["used"] == 281
            assert any(
                "281 weighted_chars" in p and "Cut at least 1" in p for p in over["problems"]
            )
        # The text at the limit really goes out, whole; one more character is refused before sending.
        result = await call(client, "write_post", title="", body=text)
        assert result["ok"] is True
        refused = await error_of(client, "write_post", title="", body=text + "한")
        assert refused.startswith("invalid_input: ")
    writes = sandbox.writes("twitter")
    assert [w["data"]["text"] for w in writes] == [text]


async def test_a_title_is_the_first_paragraph_and_counts(sandbox: SandboxControl) -> None:
    body = "b" * 270
    async with Client(SPEC.build(sandbox.url)) as client:
        # "Title" + "\n\n" + 270 = 277 fits; a 9-character title makes it 281.
        fits = await call(client, "validate", action="write_post", title="Title", body=body)
        assert fits["ok"] and fits["length"]["used"] == 277
        over = await call(client, "validate", action="write_post", title="Long title", body=body)
        assert not over["ok"] and over["length"]["used"] == 282
        # X posts carry no tags: refused rather than dropped, so none is approved unseen
        tagged = await call(
            client, "validate", action="write_post", title="T", body="b", tags=["x"]
        )
        assert not tagged["ok"] and "take no tags" in " ".join(tagged["problems"])
        await call(client, "write_post", title="Title", body=body)
    assert sandbox.writes("twitter")[0]["data"]["text"] == "Title\n\n" + body


@pytest.mark.parametrize("env", READERS.values(), ids=READERS)
async def test_links_read_back_as_written(sandbox: SandboxControl, env: dict[str, str]) -> None:
    # X serves every link as a t.co link: a read-back must still find the text it sent.
    text = "Notes: https://example.com/a?b=1 then @gwanjong_bot and https://example.org/"
    async with Client(SPEC.build(sandbox.url)) as client:
        posted = await call(client, "write_post", title="", body=text)
    async with Client(SPEC.build(sandbox.url, **env)) as client:
        assert (await call(client, "get_post", post_id=posted["id"]))["body"] == text


async def test_a_landed_post_is_posted_though_our_account_cannot_be_read(
    sandbox: SandboxControl,
) -> None:
    # A fresh server's first write reads /2/users/me (75 a window) only for the post's link.
    sandbox.fault("twitter", status=429, match="/2/users/me", count=5)
    async with Client(SPEC.build(sandbox.url)) as client:
        result = await call(client, "write_post", title="", body="Landed once.")
    assert result["ok"] and result["url"].endswith(f"/status/{result['id']}")
    assert len(sandbox.writes("twitter")) == 1


# -- the summoned-reply rule --------------------------------------------------------------


@pytest.mark.parametrize("env", READERS.values(), ids=READERS)
async def test_an_unsummoned_reply_is_refused_before_any_write_request(
    sandbox: SandboxControl, env: dict[str, str]
) -> None:
    ids = sandbox.ids("twitter")
    async with Client(SPEC.build(sandbox.url, **env)) as client:
        await call(client, "capabilities")  # learn our account first (GET /2/users/me)
        await call(client, "get_post", post_id=ids["summons-me"])  # and warm up the reader
        api_before, web_before = counts(sandbox)
        text = await error_of(
            client, "write_comment", post_id=ids["rust-async"], body="Great write-up!"
        )
        api_after, web_after = counts(sandbox)
    assert text.startswith("not_supported: ")
    assert "mentions @gwanjong_bot" in text and "2026-02-23" in text
    assert sandbox.writes("twitter") == []
    if not env:  # tweepy alone
        assert api_after - api_before == 1  # only the read of the target: no POST /2/tweets
    else:
        assert api_after == api_before  # read through twikit: nothing sent to the API
        assert web_after - web_before == 1


async def test_an_ai_reply_without_xs_approval_is_handed_to_a_person(
    sandbox: SandboxControl,
) -> None:
    """X: an AI-powered app that generates and posts replies needs X's prior approval, and
    every gwanjong reply is drafted by a model. Unset, even a summoned reply is a person's."""
    ids = sandbox.ids("twitter")
    reply = {"post_id": ids["summons-me"], "body": "One gateway, five tools."}
    async with Client(hosted(unapproved(sandbox.url))) as client:
        rule = (await call(client, "capabilities"))["actions"]["write_comment"]
        check = await call(client, "validate", action="write_comment", **reply)
        refused = await error_of(client, "write_comment", **reply)
    assert rule["allowed"] == "human" and "Policy Support form" in rule["reason"], rule
    assert f"{AI_REPLIES}=true" in rule["reason"]
    assert check["allowed"] == "human" and check["ok"] is False
    assert f"{AI_REPLIES}=true" in check["problems"][0], check
    assert refused.startswith("not_supported: ") and f"{AI_REPLIES}=true" in refused, refused
    # the server's own write refuses too: nothing reaches X around the tool's check
    adapter = TwitterAdapter(settings_from_env(Settings, unapproved(sandbox.url)))
    await adapter.connect()
    try:
        with pytest.raises(PlatformError) as write:
            await adapter.write_comment(reply["post_id"], reply["body"], None)
    finally:
        await adapter.close()
    assert write.value.kind is ErrorKind.NOT_SUPPORTED and AI_REPLIES in write.value.message
    assert sandbox.writes("twitter") == []
    # once X approved the app: the summoned-reply rules, as before
    async with Client(SPEC.build(sandbox.url, **{AI_REPLIES: "true"})) as client:
        assert (await call(client, "validate", action="write_comment", **reply))["ok"] is True
        assert (await call(client, "write_comment", **reply))["ok"] is True
    [write_row] = sandbox.writes("twitter")
    assert (write_row["action"], write_row["target"]) == ("write_comment", reply["post_id"])


async def test_a_quote_of_our_post_summons_us(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("twitter")
    async with Client(SPEC.build(sandbox.url)) as client:
        check = await call(
            client,
            "validate",
            action="write_comment",
            body="Thanks for the quote!",
            post_id=ids["x-quotes-me"],
        )
        assert check["ok"] is True and check["allowed"] == "auto"
        # anyone else mentioned did not summon us: refused before sending, a post too
        cc = await error_of(client, "write_comment", post_id=ids["x-quotes-me"], body="cc @rita")
        post = await error_of(client, "write_post", title="", body="Ask @Rita_R too.")
        result = await call(
            client, "write_comment", post_id=ids["x-quotes-me"], body="Thanks for the quote!"
        )
    assert cc.startswith("invalid_input: ") and "@rita, who did not summon us" in cc
    assert post.startswith("invalid_input: ") and "@rita_r" in post
    assert result["ok"] is True
    writes = sandbox.writes("twitter")
    assert [(w["action"], w["target"]) for w in writes] == [("write_comment", ids["x-quotes-me"])]


async def test_a_quote_whose_author_lets_only_the_mentioned_reply_is_never(
    sandbox: SandboxControl,
) -> None:
    post = sandbox.ids("twitter")["x-quotes-me-closed"]
    async with Client(SPEC.build(sandbox.url)) as client:
        check = await call(client, "validate", action="write_comment", body="Hi!", post_id=post)
        text = await error_of(client, "write_comment", post_id=post, body="Hi!")
    assert check["allowed"] == "never" and "only the accounts it mentions" in check["problems"][0]
    assert text.startswith("not_supported: ") and "only the accounts it mentions" in text, text
    assert sandbox.writes("twitter") == []


async def test_one_reply_per_interaction(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("twitter")
    async with Client(SPEC.build(sandbox.url)) as client:
        await call(
            client, "write_comment", post_id=ids["summons-me"], body="One gateway, five tools."
        )
        again = await call(
            client,
            "validate",
            action="write_comment",
            body="And another thing",
            post_id=ids["summons-me"],
        )
        assert again["allowed"] == "human", again
        # X answered the reply: it is sure, not "may"
        assert again["problems"][0].startswith(f"We already replied to post {ids['summons-me']};")
        refused = await error_of(
            client, "write_comment", post_id=ids["summons-me"], body="And another thing"
        )
    assert refused.startswith("not_supported: ")
    assert len(sandbox.writes("twitter")) == 1


async def test_duplicate_text_is_invalid_input(sandbox: SandboxControl) -> None:
    async with Client(SPEC.build(sandbox.url)) as client:
        await call(client, "write_post", title="", body="Notes on MCP error messages.")
        text = await error_of(client, "write_post", title="", body="Notes on MCP error messages.")
    assert text.startswith("invalid_input: ") and "already posted it" in text
    assert len(sandbox.writes("twitter")) == 1


async def test_likes_only_for_accounts_that_have_them(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("twitter")
    async with Client(SPEC.build(sandbox.url)) as client:
        caps = await call(client, "capabilities")
        assert (
            caps["actions"]["upvote"]["allowed"] == "never"
            and "2026-04-16" in caps["actions"]["upvote"]["reason"]
        )
    async with Client(SPEC.build(sandbox.url, TWITTER_LIKES_ALLOWED="true")) as client:
        caps = await call(client, "capabilities")
        # X: "Likes must be directly user-initiated": a person approves each one
        assert caps["actions"]["upvote"]["allowed"] == "approved"
        check = await call(client, "validate", action="upvote", body="", post_id=ids["rust-async"])
        assert check["allowed"] == "approved" and check["ok"] is True, check
        assert (await error_of(client, "upvote", post_id=ids["deleted-post"])).startswith(
            "not_found: "
        )
        result = await call(client, "upvote", post_id=ids["rust-async"])
    assert result["ok"] is True
    assert [(w["action"], w["target"]) for w in sandbox.writes("twitter")] == [
        ("upvote", ids["rust-async"])
    ]


async def test_a_search_x_refuses_says_why(sandbox: SandboxControl) -> None:
    async with Client(SPEC.build(sandbox.url)) as client:  # X's 400 names the query's fault
        text = await error_of(client, "search", query="OR")
    assert text.startswith("invalid_input: ") and "dangling operator" in text, text


# -- the twikit reader and its fallback ---------------------------------------------------


async def test_twikit_reads_first_when_configured(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("twitter")
    async with Client(SPEC.build(sandbox.url, **TWIKIT)) as client:
        await call(client, "capabilities")
        api_before, web_before = counts(sandbox)
        post = await call(client, "get_post", post_id=ids["korean-dev"])
        comments = (await call(client, "get_comments", post_id=ids["deleted-comments"]))["comments"]
        found = (await call(client, "search", query="비동기"))["posts"]
        api_after, web_after = counts(sandbox)
    assert "세마포어" in post["body"] and post["tags"] == ["python", "async", "korean"]
    assert [c["author"] for c in comments] == [
        "",
        "reviewer_rae",
        "kind_kai",
    ]  # the tombstone keeps its place
    assert ids["korean-dev"] in [p["id"] for p in found]
    assert api_after == api_before  # nothing went to the official API
    assert web_after > web_before


async def test_a_twikit_failure_falls_back_in_the_same_call(
    sandbox: SandboxControl, caplog: pytest.LogCaptureFixture
) -> None:
    ids = sandbox.ids("twitter")
    caplog.set_level(logging.INFO, logger="gwanjong_twitter")
    async with Client(SPEC.build(sandbox.url, **TWIKIT)) as client:
        first = await call(
            client, "get_post", post_id=ids["rust-async"]
        )  # twikit bootstraps and answers
        caps = await call(client, "capabilities")
        assert "no fallback yet" in caps["actions"]["write_post"]["reason"]
        sandbox.fault("twikit", status=503, match="TweetDetail", count=1)
        api_before, _ = counts(sandbox)
        again = await call(client, "get_post", post_id=ids["rust-async"])
        api_after, _ = counts(sandbox)
        caps = await call(client, "capabilities")
        # twikit is tried again on the next call, and answers.
        third_before, _ = counts(sandbox)
        await call(client, "get_post", post_id=ids["mcp-servers"])
        third_after, _ = counts(sandbox)
    assert again == first  # the same post, now from the official API
    assert api_after - api_before == 1
    assert third_after == third_before
    reason = caps["actions"]["write_post"]["reason"] + caps["actions"]["write_comment"]["reason"]
    assert "last fallback: fetching a post at" in reason and "ServerError" in reason
    assert any(
        "twikit reader failed fetching a post (ServerError); falling back to the official API"
        in r.getMessage()
        for r in caplog.records
    )


async def test_twikit_rate_limit_falls_back_without_hammering_user_state(
    sandbox: SandboxControl,
) -> None:
    """On a 429 twikit asks user_state.json (which here is throttled too); it must ask once,
    not recurse, and the read still comes back from the official API."""
    ids = sandbox.ids("twitter")
    async with Client(SPEC.build(sandbox.url, **TWIKIT)) as client:
        await call(client, "get_post", post_id=ids["rust-async"])
        sandbox.fault("twikit", status=429, retry_after=30, count=10)
        _, web_before = counts(sandbox)
        post = await call(client, "get_post", post_id=ids["llm-agents"])
        _, web_after = counts(sandbox)
    assert post["id"] == ids["llm-agents"]
    assert web_after - web_before == 2  # TweetDetail, then user_state.json once


async def test_a_hanging_web_api_costs_one_timeout_then_the_api_answers(
    sandbox: SandboxControl,
) -> None:
    ids = sandbox.ids("twitter")
    async with Client(SPEC.build(sandbox.url, **TWIKIT, **SPEC.timeouts(2))) as client:
        # The hang outlasts the server's whole call bound (TIMEOUT_S + 5 s): only if
        # TIMEOUT_S=2 bounds the web attempt does the official API get to answer at all.
        sandbox.fault("twikit", kind="hang", seconds=12, count=5)
        api_before, web_before = counts(sandbox)
        post = await call(client, "get_post", post_id=ids["python-packaging"])
        api_after, web_after = counts(sandbox)
    assert post["id"] == ids["python-packaging"]
    assert web_after - web_before >= 1 and api_after - api_before >= 1


async def test_twikit_login_writes_the_cookies_file(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    cookies = tmp_path / "twikit.json"
    env = {
        "TWITTER_COOKIES_FILE": str(cookies),
        "TWITTER_USERNAME": "gwanjong_reader",
        "TWITTER_EMAIL": "reader@example.com",
        "TWITTER_PASSWORD": "sandbox-twikit-password",
    }
    ids = sandbox.ids("twitter")
    async with Client(SPEC.build(sandbox.url, **env)) as client:
        api_before, _ = counts(sandbox)
        post = await call(client, "get_post", post_id=ids["emoji-post"])
        api_after, _ = counts(sandbox)
    assert "🔥" in post["body"]
    assert api_after == api_before  # read through the fresh web session
    saved = json.loads(cookies.read_text())
    assert (
        set(saved) >= {"auth_token", "ct0"} and saved["auth_token"] != "sandbox-twikit-auth-token"
    )
    assert cookies.stat().st_mode & 0o077 == 0  # a web session: the owner's alone


async def test_a_refused_login_falls_back_and_leaks_nothing(
    sandbox: SandboxControl, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    env = {
        "TWITTER_COOKIES_FILE": str(tmp_path / "none.json"),
        "TWITTER_USERNAME": "gwanjong_reader",
        "TWITTER_PASSWORD": "wrong-password-123",
    }
    ids = sandbox.ids("twitter")
    async with Client(SPEC.build(sandbox.url, **env)) as client:
        post = await call(client, "get_post", post_id=ids["rust-async"])
        caps = await call(client, "capabilities")
    assert post["id"] == ids["rust-async"]
    assert "last fallback: fetching a post" in caps["actions"]["write_post"]["reason"]
    assert not (tmp_path / "none.json").exists()
    assert "wrong-password-123" not in caplog.text


def test_the_login_guard_keeps_the_console_out() -> None:
    """twikit prompts with print() and input() when X asks for a code it was not given; on a
    stdio server that would corrupt the protocol or block. Under the guard input() fails at
    once and print() goes to stderr."""
    real_out = sys.stdout
    with no_console():
        assert sys.stdout is sys.stderr
        with pytest.raises(EOFError):
            input(">>> ")
    assert sys.stdout is real_out


# -- X's rate limits and errors -------------------------------------------------------------


async def test_an_exhausted_window_holds_only_its_endpoint(sandbox: SandboxControl) -> None:
    """X keeps a window per endpoint: one exhausted leaves the others open (that it holds
    its own calls without a request: the contract's test_after_a_429_...)."""
    async with Client(SPEC.build(sandbox.url)) as client:
        sandbox.fault("twitter", status=429, retry_after=30, count=1)
        first = await error_of(client, "get_post", post_id=sandbox.ids("twitter")["rust-async"])
        found = await call(client, "search", query="cancellation")
    assert first.startswith("rate_limited retry_after=30: ")
    assert found["posts"]


async def test_an_unexpected_host_is_refused_before_sending_by_twikit_and_tweepy() -> None:
    async with httpx.AsyncClient(transport=web_gate("http://127.0.0.1:9", Limiter("X"))) as http:
        with pytest.raises(HostNotAllowed):
            await http.get("https://evil.example/steal")
    gate = AiohttpGate(API_HOSTS, "http://127.0.0.1:9", Limiter("X"))
    async with aiohttp.ClientSession(middlewares=(gate,)) as session:
        with pytest.raises(HostNotAllowed):
            await session.get("https://evil.example/steal")


@pytest.mark.parametrize("env", READERS.values(), ids=READERS)
async def test_comments_of_a_reply_are_its_subtree_only(
    sandbox: SandboxControl, env: dict[str, str]
) -> None:
    ids = sandbox.ids("twitter")
    async with Client(SPEC.build(sandbox.url, **env)) as client:
        thread = (await call(client, "get_comments", post_id=ids["mcp-servers"]))["comments"]
        question = next(c for c in thread if c["body"].startswith("How do you test it?"))
        under = (await call(client, "get_comments", post_id=question["id"]))["comments"]
    assert [(c["author"], c["depth"]) for c in under] == [("mara_codes", 0), ("kimchi_dev", 1)]
    assert under[0]["parent_id"] is None and under[1]["parent_id"] == under[0]["id"]
    assert all(c["post_id"] == question["id"] for c in under)


async def test_trending_is_the_top_trends_posts_ranked_and_reuses_the_trend_list(
    sandbox: SandboxControl,
) -> None:
    # Trend reads are billed and rate limited; within the TTL only the search repeats.
    async with Client(SPEC.build(sandbox.url)) as client:
        posts = (await call(client, "trending", limit=5))["posts"]
        before = sandbox.requests().get("twitter", 0)
        await client.call_tool("trending", {"limit": 3})
        assert sandbox.requests().get("twitter", 0) - before == 1
    # The sandbox's top three trends are #python, #databases and #performance.
    assert posts and all({"python", "databases", "performance"} & set(p["tags"]) for p in posts)
    scores = [p["likes"] + p["comments_count"] for p in posts]
    assert scores == sorted(scores, reverse=True)
    assert all(p["url"] == f"https://x.com/{p['author']}/status/{p['id']}" for p in posts)
    async with Client(SPEC.build(sandbox.url, TWITTER_TRENDS_TTL_S="0")) as client:
        await client.call_tool("trending", {"limit": 3})
        before = sandbox.requests().get("twitter", 0)
        await client.call_tool("trending", {"limit": 3})
        assert sandbox.requests().get("twitter", 0) - before == 2


async def test_mentions_hold_mentions_and_replies_not_bare_quotes(sandbox: SandboxControl) -> None:
    async with Client(SPEC.build(sandbox.url)) as client:
        posts = (await call(client, "mentions", limit=100))["posts"]
    ids = {p["id"] for p in posts}
    assert sandbox.ids("twitter")["summons-me"] in ids
    assert sandbox.ids("twitter")["x-quotes-me"] not in ids  # a quote without @us is no mention
    assert {p["tags"][0] for p in posts} == {"mention", "reply"}


async def test_a_reply_whose_answer_was_lost_still_counts_as_our_one_reply(
    sandbox: SandboxControl,
) -> None:
    """The reply may have landed (unsure): a second one to the same post would break X's
    one-reply-per-interaction rule if it had, so a program may not send it."""
    ids = sandbox.ids("twitter")
    async with Client(SPEC.build(sandbox.url)) as client:
        sandbox.fault("twitter", "apply_then_status", status=502, method="POST", match="/2/tweets")
        lost = await error_of(
            client, "write_comment", post_id=ids["summons-me"], body="One gateway, five tools."
        )
        again = await call(
            client, "validate", action="write_comment", body="Again", post_id=ids["summons-me"]
        )
    assert "may have been written" in lost, lost
    assert again["allowed"] == "human", again
    # X's answer was lost: the refusal may not claim a reply it does not know of
    said = again["problems"][0]
    assert said.startswith(f"We may already have replied to post {ids['summons-me']}"), said
