"""scout(source="mentions"): the inbox over MCP. The inbox's own logic (cursors, turns,
a server without mentions) runs over fake platforms in memory (tests/fakes); what each
real platform puts in its inbox runs through the real servers and the sandbox."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_gateway.config import parse
from gwanjong_gateway.console.health_pages import INBOX_ROWS
from gwanjong_gateway.scout import inbox
from gwanjong_gateway.scout.state import Opportunity
from gwanjong_gateway.server import build_gateway
from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract.models import Post
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import FORUM, LINKS, SOCIAL, TWEETS
from tests.gateway.console.helpers import serving, sign_in
from tests.gateway.helpers import config_text, gateway_of, in_memory_gateway, patient_gateway
from tests.mcp import call, error_of

pytestmark = pytest.mark.anyio
ALL = ["devto", "bluesky", "twitter", "reddit"]


def summoned(scouted: dict[str, Any]) -> list[dict[str, Any]]:
    return [o for o in scouted["opportunities"] if o.get("summoned")]


async def test_inbox_comes_first_marked_summoned(sandbox: SandboxControl, tmp_path: Path) -> None:
    async with Client(in_memory_gateway(sandbox, tmp_path, ALL)) as client:
        scouted = await call(client, "scout", source="mentions", topic="rust async", limit=25)
    opportunities = scouted["opportunities"]
    inbox = summoned(scouted)
    assert inbox and opportunities[: len(inbox)] == inbox  # the inbox first
    assert len(inbox) < len(opportunities)  # then the topic fills the rest
    assert {o["platform"] for o in inbox} == set(ALL)
    assert scouted["errors"] == {}
    for o in inbox:
        assert o["reason"].startswith("summoned: @")
        assert set(o) == {*opportunities[-1], "summoned"}  # the same compressed shape
    reasons = " ".join(o["reason"] for o in inbox)
    assert "@curious-carl.bsky.social mentions you" in reasons
    assert "@curious_carl replied to you" in reasons
    # Dev.to shows that we answered devon: only the unanswered comment is left.
    devto = [o for o in inbox if o["platform"] == "devto"]
    assert len(devto) == 1 and "curious_carl" in devto[0]["reason"]


async def test_topic_is_optional_only_for_the_inbox_whose_cursor_is_kept_per_platform(
    tmp_path: Path,
) -> None:
    fakes = (FakePlatform(SOCIAL), FakePlatform(TWEETS))
    async with Client(fake_gateway(tmp_path, *fakes)) as client:
        assert (await error_of(client, "scout")).startswith("invalid_input: ")
        only_inbox = await call(client, "scout", source="mentions", limit=25)
        first = summoned(only_inbox)
        assert only_inbox["opportunities"] == first != []
    assert {o["platform"] for o in first} == {"bluesky", "twitter"}
    cursors = json.loads((tmp_path / "inbox.json").read_text())
    assert set(cursors) == {"bluesky", "twitter"} and all(cursors.values())
    # A new gateway on the same state dir: nothing new since the kept cursors.
    async with Client(fake_gateway(tmp_path, *fakes)) as client:
        again = await call(client, "scout", source="mentions", limit=25)
    assert summoned(again) == []
    assert "hint" in again
    # Forgetting one platform's cursor brings back only that platform's inbox.
    (tmp_path / "inbox.json").write_text(json.dumps({"twitter": cursors["twitter"]}))
    async with Client(fake_gateway(tmp_path, *fakes)) as client:
        third = summoned(await call(client, "scout", source="mentions", limit=25))
    assert {o["platform"] for o in third} == {"bluesky"}


async def test_answering_a_mention_is_auto_and_drops_it_from_the_inbox(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    async with Client(in_memory_gateway(sandbox, tmp_path, ["bluesky", "twitter", "devto"])) as c:
        inbox = summoned(await call(c, "scout", source="mentions", limit=25))
        answered: list[str] = []
        for platform in ("bluesky", "twitter"):
            mention = next(
                o for o in inbox if o["platform"] == platform and "mentions you" in o["reason"]
            )
            drafted = await call(c, "draft", opportunity_id=mention["id"])
            assert drafted["strike"]["actions"]["comment"]["allowed"] == "auto"
            reply = "One gateway: five tools keep the model's context small."
            struck = await call(
                c, "strike", opportunity_id=mention["id"], action="comment", content=reply
            )
            assert struck["status"] == "posted", struck
            answered.append(mention["id"])
        devto = next(o for o in inbox if o["platform"] == "devto")
        await call(c, "draft", opportunity_id=devto["id"])
        handoff = await call(
            c, "strike", opportunity_id=devto["id"], action="comment", content="About 1,400 tokens."
        )
        assert handoff["status"] == "handoff"
    assert [w["action"] for w in sandbox.writes("bluesky")] == ["write_comment"]
    assert [w["action"] for w in sandbox.writes("twitter")] == ["write_comment"]
    (tmp_path / "inbox.json").unlink()  # read the whole inbox again
    async with Client(in_memory_gateway(sandbox, tmp_path, ["bluesky", "twitter", "devto"])) as c:
        again = summoned(await call(c, "scout", source="mentions", limit=25))
    ids = {o["id"] for o in again}
    assert not ids & {*answered, devto["id"]}  # acted on: no longer unanswered
    assert {o["platform"] for o in again} == {"bluesky", "twitter"}  # the replies remain


async def test_a_server_without_mentions_is_up_and_skipped(tmp_path: Path) -> None:
    config = parse(config_text(tmp_path, ["twitter", "reddit"]))
    legacy = FakePlatform(LINKS).server()
    legacy.disable(names={"mentions"})  # a fifth-platform server that predates the inbox
    transports = {"twitter": FakePlatform(TWEETS).server(), "reddit": legacy}
    gw = patient_gateway(config, {}, transports)
    async with Client(build_gateway(config, gateway=gw)) as client:
        scouted = await call(client, "scout", source="mentions", limit=25)
        status = await call(client, "status")
    assert {o["platform"] for o in summoned(scouted)} == {"twitter"}
    assert "no mentions tool" in scouted["errors"]["reddit"]
    assert status["platforms"]["reddit"]["health"] == "up"


def test_the_inbox_takes_turns_across_platforms() -> None:
    def item(platform: str, n: int) -> Opportunity:
        post = Post(id=str(n), platform=platform, published_at=f"2026-11-27T0{9 - n}:00:00Z")
        return inbox.summoned(post)

    newest_first = [item("bluesky", 0), item("bluesky", 1), item("bluesky", 2), item("devto", 3)]
    order = [(o.post.platform, o.post.id) for o in inbox.fair(newest_first)]
    assert order == [("bluesky", "0"), ("devto", "3"), ("bluesky", "1"), ("bluesky", "2")]


def test_a_broken_cursor_file_costs_one_full_inbox(tmp_path: Path) -> None:
    cursors = inbox.Cursors(tmp_path / "inbox.json")
    assert cursors.get("x") is None
    cursors.set("x", "42")
    cursors.set("bluesky", "2026-11-27T06:00:00.250Z")
    assert cursors.get("x") == "42" and cursors.get("bluesky") == "2026-11-27T06:00:00.250Z"
    (tmp_path / "inbox.json").write_text("{not json")
    assert cursors.get("x") is None
    cursors.set("x", "43")
    assert cursors.load() == {"x": "43"}


async def test_what_did_not_fit_in_limit_comes_back(tmp_path: Path) -> None:
    social = FakePlatform(SOCIAL)
    for n in range(2):  # three mentions here, one on the forum
        ask = "@gwanjong.bsky.social any idea?"
        social.add_post(f"ask-{n}", f"Question {n}", ask, summons=True)
    async with Client(fake_gateway(tmp_path, social, FakePlatform(FORUM))) as client:
        first = await call(client, "scout", source="mentions", limit=2)
        assert [o["platform"] for o in first["opportunities"]] == ["bluesky", "devto"]
        assert "call again" in first["errors"]["bluesky"]  # bluesky had more than its turn
        cursors = json.loads((tmp_path / "inbox.json").read_text())
        # Both cursors moved, bluesky's only past the one summons it listed.
        assert set(cursors) == {"devto", "bluesky"}
        second = await call(client, "scout", source="mentions", limit=25)
    platforms = [o["platform"] for o in summoned(second)]
    assert platforms == ["bluesky", "bluesky"]  # the two that did not fit, and only those
    assert first["opportunities"][0]["id"] not in {o["id"] for o in second["opportunities"]}
    assert second["errors"] == {}


async def test_the_console_inbox_reads_on_past_one_listing_without_moving_cursors(
    tmp_path: Path,
) -> None:
    """A notification's "Open /inbox" shows what waits: more than one listing of a
    platform is read on (the page's own cursors), the same on a reload, and the model's
    inbox still starts where it was."""
    social = FakePlatform(SOCIAL)
    for n in range(30):
        social.add_post(f"s-{n}", f"Question {n}", "@gwanjong.bsky.social hi", summons=True)
    waiting = len(social.mentions_after(-1))
    assert inbox.PER_PLATFORM < waiting <= INBOX_ROWS
    async with serving(*gateway_of(tmp_path, social, writes="dry-run")) as s:
        await sign_in(s)
        for _reload in range(2):
            page = (await s.http.get("/inbox")).text
            assert page.count('class="card"') == waiting and "call again" not in page
        assert not (tmp_path / "inbox.json").exists()
        first = await call(s.client, "scout", source="mentions", limit=1)
    assert first["opportunities"][0]["title"] == social.mentions_after(-1)[0].title


async def test_every_summons_is_listed_exactly_once_at_a_small_limit(tmp_path: Path) -> None:
    """Many summons on two platforms, polled at limit 3 until the inbox is empty: each is
    listed once, none is lost behind a cursor, and a restart in between changes nothing."""
    social, tweets = FakePlatform(SOCIAL), FakePlatform(TWEETS)
    for n in range(23):
        social.add_post(f"s-{n}", f"Bluesky question {n}", "@gwanjong.bsky.social hi", summons=True)
    for n in range(11):
        tweets.add_post(f"t-{n}", f"X question {n}", "@gwanjong hi", summons=True)
    expected = len(social.mentions_after(-1)) + len(tweets.mentions_after(-1))
    assert expected > 34  # the seed's own summons too
    listed: list[tuple[str, str]] = []
    for _restart in range(2):  # a new gateway on the same state dir halfway
        async with Client(fake_gateway(tmp_path, social, tweets)) as client:
            for _poll in range(10):
                got = summoned(await call(client, "scout", source="mentions", limit=3))
                assert len(got) <= 3
                listed += [(o["platform"], o["id"]) for o in got]
    assert len(listed) == len(set(listed))  # never twice
    assert len(listed) == expected  # never lost


@pytest.mark.parametrize("platform", ["bluesky", "twitter"])
async def test_the_gateway_lists_every_sandbox_summons_once_at_a_small_limit(
    sandbox: SandboxControl, tmp_path: Path, platform: str
) -> None:
    """The real server, its SDK and the sandbox's paged inbox (summons mixed with items
    that summon nobody), polled through the gateway at limit 4 until it is empty: every
    summons the server holds is listed once. The truth is the server's own listing."""
    from tests.platforms import SPECS
    from tests.servers.wire.test_inbox_paging import drain

    sandbox.flood_inbox(45, noise=20)
    async with Client(SPECS[platform].build(sandbox.url)) as server:
        truth = {p["url"] for p in await drain(server, None, limit=100)}
    listed: list[str] = []
    async with Client(in_memory_gateway(sandbox, tmp_path, [platform])) as client:
        for _poll in range(40):
            got = summoned(await call(client, "scout", source="mentions", limit=4))
            assert len(got) <= 4
            if not got:
                break
            listed += [o["url"] for o in got]
    assert len(truth) > 45
    assert len(listed) == len(set(listed))  # never twice
    assert set(listed) == truth  # never lost


async def test_a_long_cursor_from_the_platform_does_not_stop_the_inbox(tmp_path: Path) -> None:
    """A cursor is the platform's: Bluesky's holds the at:// URI of the newest summons,
    which a did:web and a long record key make several hundred characters long. The
    server takes back every cursor it handed out, so one such summons cannot shut the
    inbox for good."""
    social = FakePlatform(
        SOCIAL, cursor_prefix=f"2026-12-06T09:12:00.000Z,at://did:web:{'a' * 240}.example/"
    )
    async with Client(fake_gateway(tmp_path, social)) as client:
        assert summoned(await call(client, "scout", source="mentions", limit=25))
        social.add_post("later", "Another question", "And this, {me}?", summons=True)
        again = await call(client, "scout", source="mentions", limit=25)
    assert [o["title"] for o in summoned(again)] == ["Another question"], again


async def test_a_summons_holding_lone_surrogates_does_not_shut_the_inbox(tmp_path: Path) -> None:
    """A platform's JSON may spell half a surrogate pair ("\\ud800", or an emoji cut in
    half): no UTF-8 can carry it, so an answer holding one could not be sent and that
    platform's inbox failed on every read from then on (its cursor never moved)."""
    social = FakePlatform(SOCIAL)
    social.add_post(
        "half", "Half \ud83d an emoji", "Look, {me} \udfff!", author="ev\ud800e", summons=True
    )
    async with Client(fake_gateway(tmp_path, social)) as client:
        first = await call(client, "scout", source="mentions", limit=25)
        found = [o for o in summoned(first) if o["title"].startswith("Half")]
        assert found and "bluesky" not in first["errors"], first
        drafted = await call(client, "draft", opportunity_id=found[0]["id"])
        social.add_post("later", "Another question", "And this, {me}?", summons=True)
        again = await call(client, "scout", source="mentions", limit=25)
    assert found[0]["title"] == "Half \ufffd an emoji" and "\ufffd!" in drafted["post"]
    assert [o["title"] for o in summoned(again)] == ["Another question"], again
