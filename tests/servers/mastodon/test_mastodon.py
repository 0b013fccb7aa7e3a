"""Mastodon specifics the contract suite cannot see, over real HTTP to the sandbox through
Mastodon.py: search by words and by hashtag, the context tree with its content warning,
and the fediverse's rules as correctness (a write allowed from a flagged bot, refused
without the flag and to a #nobot author, a reply that keeps a followers-only thread's
visibility, the instance's own limit)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from gwanjong_sandbox.mastodon.world import (
    FOLLOWER,
    HUMAN_TOKEN,
    MAX_CHARS,
    NOBOT,
    REMOTE,
    REMOTE_REPLY,
    RULES,
    SPOILERS,
    TOKEN,
)
from tests.gateway.helpers import in_memory_gateway, opportunity_for
from tests.mcp import call, error_of, outcome, until
from tests.platforms import SPECS
from tests.servers.inbox import paths

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py
SPEC = SPECS["mastodon"]


# -- reads ------------------------------------------------------------------------------------


async def test_search_by_words_and_by_hashtag(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("mastodon")
    async with Client(SPEC.build(sandbox.url)) as client:
        words = (await call(client, "search", query="rust cancellation", limit=10))["posts"]
        tagged = (await call(client, "search", query="#databases", limit=10))["posts"]
    assert ids["rust-async"] in [p["id"] for p in words]
    assert tagged and all("databases" in p["tags"] for p in tagged)
    assert ids["huge"] in [p["id"] for p in tagged]
    assert all("<p>" not in p["body"] for p in words + tagged)  # HTML became text
    seen = paths(sandbox, "mastodon")  # only an empty page ends a search or a tag's timeline
    assert (
        seen.get("GET /api/v2/search") == 2 and seen.get("GET /api/v1/timelines/tag/databases") == 2
    )


@pytest.mark.parametrize(
    ("query", "shown"),
    [("#busytag", 45), ("busytag", 45), ("busytag", 40)],
    ids=["hashtag", "words", "words-filtered"],
)
async def test_a_busy_search_is_read_past_its_first_page(
    sandbox: SandboxControl, query: str, shown: int
) -> None:
    """Mastodon pages a hashtag timeline 40 statuses at most, and a search 20 by default (40
    at most); a search asked for more reads on (max_id, offset), since a listing shorter
    than asked says that is all there is (the read-back of an unsure post counts on it).
    Search drops what the searcher may not see (blocks, mutes) from each page after the
    index answered it: a page cut short so (here 15 of 20) is not the last."""
    async with httpx.AsyncClient(base_url=sandbox.url) as web:  # people use the tag
        for i in range(45):
            made = await web.post(
                "/api/v1/statuses",
                data={"status": f"Note {i} on #BusyTag"},
                headers={"Authorization": f"Bearer {HUMAN_TOKEN}"},
            )
            assert made.status_code == 200, made.text
        if shown < 45:
            bot = {"Authorization": f"Bearer {TOKEN}"}
            page = (await web.get("/api/v2/search", params={"q": query}, headers=bot)).json()
            cut = json.dumps(page | {"statuses": page["statuses"][:15]})
            json_ = "application/json"
            sandbox.fault(
                "mastodon", status=200, match="/api/v2/search", body=cut, content_type=json_
            )
    async with Client(SPEC.build(sandbox.url)) as client:
        found = (await call(client, "search", query=query, limit=50))["posts"]
    assert len({p["id"] for p in found}) == shown, len(found)


async def test_context_tree_keeps_the_content_warning(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("mastodon")
    async with Client(SPEC.build(sandbox.url)) as client:
        post = await call(client, "get_post", post_id=ids["huge"])
        comments = (await call(client, "get_comments", post_id=ids["mcp-servers"]))["comments"]
        # a reply asked for itself: it sits in its thread, under its parent
        reply = next(c for c in comments if c["depth"] == 1)
        around = (await call(client, "get_comments", post_id=reply["id"]))["comments"]
    assert post["title"] == "CW: long thread, database talk"
    assert [c["depth"] for c in comments][:1] == [0] and max(c["depth"] for c in comments) == 2
    assert reply["id"] in [c["id"] for c in around]
    assert any("stdout" in c["body"] and "<" not in c["body"] for c in comments)


@pytest.mark.parametrize(
    "query", ["#databases/../../../accounts/verify_credentials", "#db?local=true", "##databases"]
)
async def test_only_a_hashtag_reads_the_hashtag_timeline(
    sandbox: SandboxControl, query: str
) -> None:
    """The tag goes into the timeline's path as is (Mastodon.py does not quote it): a word
    that is not #letters-and-digits is searched as text, never put in a path."""
    async with Client(SPEC.build(sandbox.url)) as client:
        await call(client, "search", query=query, limit=5)
    seen = paths(sandbox, "mastodon")  # the text search, and our statuses to their end
    ours = {"GET /api/v1/accounts/verify_credentials": 1, "GET /api/v1/accounts/100/statuses": 2}
    assert seen == {"GET /api/v2/search": 1, **ours}, seen


async def test_a_remote_status_links_where_its_server_is(sandbox: SandboxControl) -> None:
    """A remote status's url is its server's word: one that points at another site (here a
    Dev.to post) is not shown as the status's link; the instance's own page for it is, as
    Mastodon's web UI shows it. A url on the status's own server is kept."""
    ids = sandbox.ids("mastodon")
    name, domain, elsewhere = REMOTE
    async with Client(SPEC.build(sandbox.url)) as client:
        post = await call(client, "get_post", post_id=ids["remote-elsewhere"])
        (reply,) = (await call(client, "get_comments", post_id=ids["remote-elsewhere"]))["comments"]
    assert post["url"] == f"{sandbox.url}/@{name}@{domain}/{ids['remote-elsewhere']}", post
    assert elsewhere not in json.dumps({k: v for k, v in post.items() if k != "raw"})
    ann, other = REMOTE_REPLY
    assert reply["url"] == f"https://{other}/@{ann}/{ids['remote-reply']}", reply


async def test_an_inbox_of_ulids_is_listed(sandbox: SandboxControl) -> None:
    """GoToSocial serves Mastodon's API with ULIDs for ids, notifications too: each is
    listed once, and the cursor handed out reads back (they were all skipped, in silence)."""
    recorded = json.loads(
        (Path(__file__).parent / "payloads/notifications_mention.json").read_text()
    )
    mention = recorded["body"][0]
    ulid = "01JE8Z3K5QW9GQ4T7N2M6XR1BC"
    page = [mention | {"id": ulid, "status": mention["status"] | {"id": "01JE8Z3K5Q"}}]
    async with Client(SPEC.build(sandbox.url)) as client:
        await call(client, "capabilities")
        for _ in range(2):
            sandbox.fault(
                "mastodon",
                status=200,
                match="/api/v1/notifications",
                body=json.dumps(page),
                content_type="application/json",
            )
        first = await call(client, "mentions")
        again = await call(client, "mentions", since=first["next_since"])
    assert [p["id"] for p in first["posts"]] == ["01JE8Z3K5Q"], first
    assert again["posts"] == [] and not again["more"], again


# -- rules as correctness ----------------------------------------------------------------------


async def test_a_post_is_its_title_then_its_text(sandbox: SandboxControl) -> None:
    """What is sent is what was approved: hashtags are written in the text, never added
    (separate tags are refused: the contract's write_post); a post's and a reply's text to
    its last character (a gateway.toml footer may end its line)."""
    body = "Log to stderr. #mcp\n\n-- a bot\n"
    async with Client(SPEC.build(sandbox.url)) as client:
        await call(client, "write_post", title="Notes", body=body, tags=[])
        await call(
            client, "write_comment", post_id=sandbox.ids("mastodon")["summons-me"], body=body
        )
    (post, reply) = sandbox.writes("mastodon")
    assert post["data"]["status"] == f"Notes\n\n{body}" and reply["data"]["status"] == body


@pytest.mark.parametrize("key", ["private-thread", "huge"], ids=["followers-only", "warning"])
async def test_a_reply_that_would_keep_an_audience_or_a_warning_is_a_persons(
    sandbox: SandboxControl, key: str
) -> None:
    """A reply keeps its thread's audience (never widened) and content warning, which no
    approval shows (a write is shown public, with no warning): such a reply is left to a
    person, whose client keeps both, and the server sends nothing."""
    ids = sandbox.ids("mastodon")
    reply = "Will do today."
    async with Client(SPEC.build(sandbox.url)) as client:
        shown = await call(client, "get_post", post_id=ids[key])
        check = await call(client, "validate", action="write_comment", body=reply, post_id=ids[key])
        refused = await error_of(client, "write_comment", post_id=ids[key], body=reply)
        body = "One gateway, five tools."
        assert (await call(client, "write_comment", post_id=ids["summons-me"], body=body))["ok"]
    assert check["allowed"] == "human" and repr(SPOILERS[key]) in check["problems"][-1], check
    assert refused.startswith("not_supported: ") and repr(SPOILERS[key]) in refused, refused
    assert shown["title"] == f"CW: {SPOILERS[key]}"
    assert ("visibility:private" in shown["tags"]) is (key == "private-thread")
    (public,) = sandbox.writes("mastodon")
    assert public["target"] == ids["summons-me"] and public["data"]["visibility"] == "public"
    assert public["data"]["spoiler_text"] == ""


async def test_writes_are_refused_without_the_bot_flag(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("mastodon")
    async with Client(SPEC.build(sandbox.url, MASTODON_ACCESS_TOKEN=HUMAN_TOKEN)) as client:
        post = await error_of(client, "write_post", title="", body="Hello from a script.")
        reply = await error_of(client, "write_comment", post_id=ids["summons-me"], body="Hi.")
        check = await call(client, "validate", action="write_post", body="Hello.")
    for text in (post, reply):
        assert text.startswith("not_supported: ") and "This is an automated account" in text
    assert check["allowed"] == "never" and not check["ok"]
    assert sandbox.writes("mastodon") == []


async def test_a_bot_flag_taken_off_stops_the_next_write(sandbox: SandboxControl) -> None:
    """The flag is read again before each write: a person (or the instance's moderators)
    who takes it off stops the server's writes at once, not at its next restart."""
    async with Client(SPEC.build(sandbox.url)) as client:
        assert (await call(client, "write_post", title="", body="Flagged and posting."))["ok"]
        async with httpx.AsyncClient(base_url=sandbox.url) as web:  # the person, in the app
            off = await web.patch(
                "/api/v1/accounts/update_credentials",
                data={"bot": "false"},
                headers={"Authorization": f"Bearer {TOKEN}"},
            )
        assert off.status_code == 200 and off.json()["bot"] is False
        refused = await error_of(client, "write_post", title="", body="Still posting?")
    assert refused.startswith("not_supported: ") and "automated account" in refused, refused
    assert [w["data"]["status"] for w in sandbox.writes("mastodon")] == ["Flagged and posting."]


@pytest.mark.parametrize(
    "fault",
    [{"kind": "hang", "seconds": 10}, {"status": 502}],
    ids=["no-answer", "server-error"],
)
async def test_a_failed_read_of_the_bot_flag_says_nothing_was_written(
    sandbox: SandboxControl, fault: dict[str, Any]
) -> None:
    """The flag is read again before each write: when that read fails, the write was never
    sent, so the answer says so (unavailable, nothing sent), never that it may have been
    written (which would hold the target as an unsure write)."""
    async with Client(SPEC.build(sandbox.url, **SPEC.timeouts(1))) as client:
        await call(client, "capabilities")  # warm: validate reads the flag once, then the write
        sandbox.fault("mastodon", match="/api/v1/accounts/verify_credentials", **fault)
        text = await error_of(client, "write_post", title="", body="Checked, not sent.")
    assert text.startswith("unavailable: ") and "nothing was sent" in text, text
    assert "may have been written" not in text, text
    assert sandbox.writes("mastodon") == []


async def test_nobody_answers_a_nobot_author(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("mastodon")
    async with Client(SPEC.build(sandbox.url)) as client:
        check = await call(
            client, "validate", action="write_comment", body="Hi!", post_id=ids["nobot-post"]
        )
        reply = await error_of(client, "write_comment", post_id=ids["nobot-post"], body="Hi!")
        fav = await error_of(client, "upvote", post_id=ids["nobot-post"])
    assert check["allowed"] == "never" and any("#nobot" in p for p in check["problems"])
    for text in (reply, fav):
        assert text.startswith("not_supported: ") and f"@{NOBOT}" in text and "#nobot" in text
    assert sandbox.writes("mastodon") == []


async def test_a_text_that_mentions_anyone_but_the_author_is_refused(
    sandbox: SandboxControl,
) -> None:
    """A mention notifies its account: from a program, one nobody asked for is the spam the
    fediverse's bot rules forbid (and would reach a #nobot author too). A reply may mention
    the author it answers; anyone else, in a reply or a post, is refused before sending."""
    ids = sandbox.ids("mastodon")
    to_nobot = f"@{NOBOT} agrees with you."
    async with Client(SPEC.build(sandbox.url)) as client:
        author = (await call(client, "get_post", post_id=ids["summons-me"]))["author"]
        check = await call(
            client, "validate", action="write_comment", body=to_nobot, post_id=ids["summons-me"]
        )
        reply = await error_of(client, "write_comment", post_id=ids["summons-me"], body=to_nobot)
        post = await error_of(client, "write_post", title="", body=f"Hi @{author}@x.example!")
        fine = f"@{author} thanks, @gwanjong_bot here."
        assert (await call(client, "write_comment", post_id=ids["summons-me"], body=fine))["ok"]
    assert not check["ok"] and f"@{NOBOT}," in check["problems"][-1], check
    assert reply.startswith("invalid_input: ") and f"@{NOBOT}," in reply, reply
    assert post.startswith("invalid_input: ") and f"@{author}@x.example," in post, post
    assert [w["data"]["status"] for w in sandbox.writes("mastodon")] == [fine]


async def test_the_limit_is_the_instances(sandbox: SandboxControl) -> None:
    async with Client(SPEC.build(sandbox.url)) as client:
        caps = await call(client, "capabilities")
        url = await call(
            client,
            "validate",
            action="write_post",
            body="a" * (MAX_CHARS - 24) + " https://example.com/" + "x" * 80,
        )
    # at the limit and one over it: the contract's validate test, on the limit said here
    assert caps["limits"]["body"] == {"max": MAX_CHARS, "unit": "graphemes"} != 500
    assert url["ok"]  # a URL counts 23, whatever its length
    # the instance's rules, read at start, are in the guide; the bot flag is the disclosure
    assert any(RULES[1] in line for line in caps["profile"]["writing_guide"])
    assert caps["profile"]["disclosure"] == ""
    # setup saves only the token: its first step names the instance it goes to, and how
    # to name another (never a default the person did not see)
    host = caps["profile"]["label"].removeprefix("Mastodon (").removesuffix(")")
    first = caps["profile"]["setup"]["steps"][0]
    assert f"The token is checked with {host} (MASTODON_API_BASE_URL)" in first, first
    assert "set that first in gateway.toml: [platforms.mastodon] env = {" in first


@pytest.mark.parametrize(
    "tail",
    [
        " https://example.com/x.",  # a sentence's full stop is not the URL's
        "(https://example.com/x)",  # nor a closing parenthesis
        " https://en.example.org/wiki/Rust_(language)",  # a balanced one is
        " xhttps://example.com/" + "y" * 40,  # after a letter, no URL: counted as written
        " http://localhost/" + "y" * 40,  # no top-level domain, no URL: counted as written
        " gemini://example.org/" + "y" * 40,  # a scheme Mastodon links too
        ' https://a"b.example.org/' + "y" * 40,  # a quote ends a host: no URL here
    ],
    ids=["full-stop", "parenthesis", "balanced", "after-a-letter", "localhost", "gemini", "quote"],
)
async def test_a_url_counts_where_the_instance_ends_it(sandbox: SandboxControl, tail: str) -> None:
    """Mastodon finds URLs as twitter-text does (StatusLengthValidator): one ends on a letter,
    digit or /=_#+- (or a balanced parenthesis), after no letter or digit, and only then
    weighs 23. validate counts the same text the same: what it passes lands, what it
    refuses the instance would have refused after a person approved it."""
    text = "a" * (MAX_CHARS - 24) + tail  # exactly the limit when a URL ran to the next space
    async with Client(SPEC.build(sandbox.url)) as client:
        check = await call(client, "validate", action="write_post", body=text)
        result = await client.call_tool(
            "write_post", {"title": "", "body": text}, raise_on_error=False
        )
    landed = len(sandbox.writes("mastodon")) == 1
    assert check["ok"] == landed, (check, result.content[0].text)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("mention", "counts"),
    [("@first.last@remote.example", "@first.last"), ("@ann-marie@x.example", "@ann-marie")],
)
async def test_a_remote_mention_counts_as_its_username(
    sandbox: SandboxControl, mention: str, counts: str
) -> None:
    """Mastodon counts a mention as @ and the username (Account::MENTION_RE, whose
    usernames may hold dots and dashes), without its @domain: a text at the limit so counted
    is within it (it is refused for the mention, a stranger's, not for its length)."""
    text = "a" * (MAX_CHARS - len(counts) - 1) + f" {mention}"
    async with Client(SPEC.build(sandbox.url)) as client:
        check = await call(client, "validate", action="write_post", body=text)
    assert check["length"]["used"] == MAX_CHARS, check
    assert not [p for p in check["problems"] if "Cut at least" in p], check


@pytest.mark.parametrize(
    ("action", "status", "said", "kind"),
    [
        # Mastodon's answer to a reply whose parent our account cannot see (gone, or its
        # author blocks us): set_thread's in_reply_not_found
        (
            "write_comment",
            404,
            "The post you are trying to reply to does not appear to exist.",
            "not_found",
        ),
        # Mastodon::NotPermittedError: a rule of the instance, not our token
        ("upvote", 403, "This action is not allowed", "not_supported"),
        # Doorkeeper: the token has no write scope
        ("write_comment", 403, "This action is outside the authorized scopes", "auth"),
    ],
    ids=["reply-parent-gone", "not-permitted", "no-write-scope"],
)
async def test_a_refused_write_says_what_mastodon_said(
    sandbox: SandboxControl, action: str, status: int, said: str, kind: str
) -> None:
    ids = sandbox.ids("mastodon")
    args = {"post_id": ids["summons-me"]} | ({"body": "Hi."} if action == "write_comment" else {})
    async with Client(SPEC.build(sandbox.url)) as client:
        check = {"body": "", **args}
        assert (await call(client, "validate", action=action, **check))["ok"]
        body = json.dumps({"error": said})
        sandbox.fault(
            "mastodon", status=status, method="POST", body=body, content_type="application/json"
        )
        text = await error_of(client, action, **args)
    assert text.startswith(f"{kind}: ") and said in text, text
    assert "has no replying" not in text and "has no favouriting" not in text, text
    if kind != "auth":  # the token is fine: no advice to replace it
        assert "MASTODON_ACCESS_TOKEN" not in text, text


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_a_redirect_names_the_setting_to_fix(sandbox: SandboxControl, method: str) -> None:
    """An instance answering with a redirect (http to https, a moved instance) did nothing:
    the redirect is never followed (it would carry the token) and the answer says which
    setting to fix, a write that nothing was written."""
    page = "<html><body>301 Moved Permanently</body></html>"
    async with Client(SPEC.build(sandbox.url)) as client:
        await call(client, "capabilities")  # warm: the instance and our account are read
        sandbox.fault(
            "mastodon", status=301, method=method, body=page, content_type="text/html", count=1
        )
        if method == "GET":
            text = await error_of(client, "get_post", post_id=sandbox.ids("mastodon")["huge"])
        else:
            text = await error_of(client, "write_post", title="", body="Moved?")
    assert text.startswith("unavailable: ") and "MASTODON_API_BASE_URL" in text, text
    assert "redirect" in text and "may have been written" not in text, text
    assert sandbox.writes("mastodon") == []


async def test_read_back_lag_hides_a_new_status_from_every_read(sandbox: SandboxControl) -> None:
    """Under read-back lag (the sandbox's ``lag``), a status just written shows in no read
    yet: not by id, not in its thread's context, not in search, the hashtag timeline or
    the inbox, so a read-back that finds nothing is what a real instance can answer."""
    ids = sandbox.ids("mastodon")
    text = "Lagging reply about #databases and cancellation"
    async with Client(SPEC.build(sandbox.url)) as client:
        sandbox.fault("mastodon", kind="lag", seconds=600)
        reply = await call(client, "write_comment", post_id=ids["summons-me"], body=text)
        post = await call(client, "write_post", title="", body=text)
        gone = await error_of(client, "get_post", post_id=post["id"])
        thread = (await call(client, "get_comments", post_id=ids["summons-me"]))["comments"]
        found = (await call(client, "search", query="lagging reply", limit=40))["posts"]
        tagged = (await call(client, "search", query="#databases", limit=40))["posts"]
    assert gone.startswith("not_found: ")
    seen = {c["id"] for c in thread} | {p["id"] for p in found + tagged}
    assert reply["id"] not in seen and post["id"] not in seen, seen


async def test_a_lost_post_is_read_back_where_search_finds_no_statuses(
    sandbox: SandboxControl,
) -> None:
    """Mastodon finds statuses by their words only with Elasticsearch, which many instances
    do not run (their search answers none). The gateway reads an unsure post back through
    search: finding nothing, it would count the post as not written after its settle window,
    and a strike an hour later (the Idempotency-Key forgotten) would post it again. Search
    also reads our own latest statuses, as Elasticsearch finds a searcher's own."""
    text = "Notes on cancellation in async Rust, posted once."
    nothing = json.dumps({"accounts": [], "statuses": [], "hashtags": []})
    async with Client(SPEC.build(sandbox.url)) as client:
        sandbox.fault("mastodon", "apply_then_status", status=502, match="/api/v1/statuses")
        lost = await error_of(client, "write_post", title="", body=text)
        sandbox.fault(
            "mastodon",
            status=200,
            match="/api/v2/search",
            body=nothing,
            content_type="application/json",
        )
        found = (await call(client, "search", query=text[:40], limit=50))["posts"]
    (write,) = sandbox.writes("mastodon")
    assert "may have been written" in lost and write["data"]["id"] in [p["id"] for p in found]


async def test_a_write_sent_again_after_a_lost_answer_is_not_posted_twice(
    sandbox: SandboxControl,
) -> None:
    """The server never resends a write whose answer was lost; when a person sends the same
    text again, its Idempotency-Key (the same for the same write) has Mastodon answer with
    the first status instead of posting a second."""
    async with Client(SPEC.build(sandbox.url)) as client:
        page = "<html><body><h1>502 Bad Gateway</h1></body></html>"  # nginx, not Mastodon
        sandbox.fault(
            "mastodon",
            "apply_then_status",
            status=502,
            method="POST",
            match="/api/v1/statuses",
            body=page,
            content_type="text/html",
        )
        lost = await error_of(client, "write_post", title="", body="Said once.")
        again = await call(client, "write_post", title="", body="Said once.")
    assert lost.startswith("unavailable: ") and "may have been written" in lost, lost
    (write,) = sandbox.writes("mastodon")
    assert again["id"] == write["data"]["id"], again


async def test_a_repeat_while_a_timed_out_status_is_still_at_work_is_not_sent(
    sandbox: SandboxControl,
) -> None:
    """Mastodon keeps an Idempotency-Key only once its status is written: a write that timed
    out while the instance was still at work on it (a slow insert, mentions resolved) is not
    known by its key yet, so a repeat sent then posts a second status. The repeat is read
    back instead, refused as unsure while the first does not show, and answered with it
    once it does."""
    write = {"title": "", "body": "A slow instance, one status."}
    async with Client(SPEC.build(sandbox.url, **SPEC.timeouts(1))) as client:
        sandbox.fault("mastodon", "slow_write", seconds=3, method="POST", match="/api/v1/statuses")
        assert "may have been written" in await error_of(client, "write_post", **write)
        again = await client.call_tool("write_post", write, raise_on_error=False)
        await until(lambda: bool(sandbox.writes("mastodon")), seconds=30)  # the first lands
        found = await call(client, "write_post", **write)
    text = again.content[0].text  # type: ignore[union-attr]
    assert again.is_error and "not sent again" in text, text
    (first,) = sandbox.writes("mastodon")
    assert found["id"] == first["data"]["id"], found


@pytest.mark.parametrize(
    "headers",
    [
        {"X-RateLimit-Reset": "1765000000.25"},  # epoch seconds with a fraction, not ISO
        {"X-RateLimit-Limit": ""},  # Remaining without Limit
    ],
    ids=["epoch-reset", "no-limit"],
)
async def test_a_landed_write_with_odd_rate_limit_headers_is_posted(
    sandbox: SandboxControl, headers: dict[str, str]
) -> None:
    """Other servers (GoToSocial, Akkoma, a proxy) word their rate-limit headers otherwise
    than Mastodon; Mastodon.py raises on what it cannot parse even after a 2xx, so a write
    that landed read as refused (rate_limited: "nothing was written") and could be sent
    again. A 2xx write is posted, whatever its headers say."""
    async with Client(SPEC.build(sandbox.url)) as client:
        sandbox.fault(
            "mastodon", "headers", method="POST", match="/api/v1/statuses", headers=headers
        )
        posted = await call(client, "write_post", title="", body="Odd headers, one post.")
    (write,) = sandbox.writes("mastodon")
    assert posted["ok"] and posted["id"] == write["data"]["id"], posted


async def test_the_same_text_to_different_targets_lands_each_time(
    sandbox: SandboxControl,
) -> None:
    """Mastodon answers a reused Idempotency-Key (per account, for an hour) with the first
    status, posting nothing: the key covers what makes a write distinct, so the same text
    as a post, as a reply to one status and as a reply to another lands three times."""
    ids = sandbox.ids("mastodon")
    text = "Same words, three places."
    async with Client(SPEC.build(sandbox.url)) as client:
        post = await call(client, "write_post", title="", body=text)
        first = await call(client, "write_comment", post_id=ids["summons-me"], body=text)
        second = await call(client, "write_comment", post_id=ids["llm-3"], body=text)
    writes = sandbox.writes("mastodon")
    assert [w["target"] for w in writes] == [None, ids["summons-me"], ids["llm-3"]]
    assert [post["id"], first["id"], second["id"]] == [w["data"]["id"] for w in writes]


async def test_a_reply_to_a_status_that_gained_a_content_warning_is_a_persons(
    sandbox: SandboxControl,
) -> None:
    """Its author may add a content warning to a status after we answered it: the next
    reply is read against the status as it is now, and left to a person (it would keep the
    warning no approval shows), never sent without it or answered with the first reply."""
    text = "Thanks, noted."
    async with Client(SPEC.build(sandbox.url)) as client:
        ours = await call(client, "write_post", title="", body="Our notes on gateways.")
        async with httpx.AsyncClient(base_url=sandbox.url) as web:  # a person answers us
            human = {"Authorization": f"Bearer {HUMAN_TOKEN}"}
            made = await web.post(
                "/api/v1/statuses",
                data={"status": "Nice notes.", "in_reply_to_id": ours["id"]},
                headers=human,
            )
            theirs = made.json()["id"]
            first = await call(client, "write_comment", post_id=theirs, body=text)
            edited = await web.put(
                f"/api/v1/statuses/{theirs}",
                data={"status": "Nice notes.", "spoiler_text": "gateways"},
                headers=human,
            )
            assert edited.status_code == 200 and edited.json()["spoiler_text"] == "gateways"
            second = await error_of(client, "write_comment", post_id=theirs, body=text)
    assert second.startswith("not_supported: ") and "'gateways'" in second, second
    (reply,) = [w for w in sandbox.writes("mastodon") if w["target"] == theirs]
    assert reply["data"]["id"] == first["id"] and reply["data"]["spoiler_text"] == ""


# -- through the gateway -----------------------------------------------------------------------


async def test_through_the_gateway_strike_writes_once_refuses_nobot_hands_off_narrow(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    async with Client(in_memory_gateway(sandbox, tmp_path, ["mastodon"])) as client:
        scouted = await call(
            client, "scout", topic="MCP gateway design feedback", platforms=["mastodon"], limit=20
        )
        summoned = opportunity_for(scouted, "mastodon", "Looking for feedback")
        nobot = opportunity_for(scouted, "mastodon", "what do you think about MCP gateways")
        drafted = await call(client, "draft", opportunity_id=summoned)
        struck = await outcome(
            client, "strike", opportunity_id=summoned, action="comment", content="One gateway."
        )
        await call(client, "draft", opportunity_id=nobot)
        no = await outcome(
            client, "strike", opportunity_id=nobot, action="comment", content="Hello!"
        )
        # approvals show a write as public with no warning: a reply that keeps a narrower
        # audience and a content warning is a person's
        inbox = await call(client, "scout", source="mentions", platforms=["mastodon"])
        narrow = opportunity_for(inbox, "mastodon", "work plans")
        await call(client, "draft", opportunity_id=narrow)
        handed = await outcome(
            client, "strike", opportunity_id=narrow, action="comment", content=f"@{FOLLOWER} Yes."
        )
    assert drafted["strike"]["actions"]["comment"]["allowed"] == "auto", drafted["strike"]
    assert struck["status"] == "posted", struck
    assert no["status"] == "refused" and "#nobot" in no["reason"], no
    assert handed["status"] == "handoff" and "'work plans'" in handed["reason"], handed
    assert [w["action"] for w in sandbox.writes("mastodon")] == ["write_comment"]


async def test_an_unreachable_instance_is_said_in_words_a_person_reads() -> None:
    """Each call names what it was doing ("while reading our account"), never a bare noun
    ("while our account")."""
    async with Client(SPEC.build("http://127.0.0.1:1")) as client:
        text = await error_of(client, "mentions", limit=5)
    assert "Could not reach Mastodon while reading our account." in text, text
