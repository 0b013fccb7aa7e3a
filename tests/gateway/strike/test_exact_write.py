"""One exact write (issue 34): what a person approves is one model (`Outgoing`), its
canonical bytes are what the digest covers, and the platform call is built from it alone.
The desk runs over the fake platform, whose MCP server notes each call's arguments as the
gateway sent them."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import replace
from typing import Any

import pytest

from gwanjong_gateway.rules.approvals import Approval, ApprovalStatus, Channel
from gwanjong_gateway.rules.outgoing import Edit, Outgoing, legacy_digest
from gwanjong_gateway.strike.desk import StrikeDesk
from gwanjong_shared.contract import TagRules
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.visible import link
from tests.fakes.platform import FakePlatform
from tests.gateway.strike.test_approvals import Desks, nobody
from tests.gateway.strike.test_strike_chain import FOOTER, OPEN_FORUM, context, wire

pytestmark = pytest.mark.anyio

TAGGED = replace(
    OPEN_FORUM,
    tag_rules=TagRules(
        max=4, max_length=30, pattern="[a-z0-9]+", hint="lowercase letters or digits"
    ),
)


@pytest.fixture
def fake() -> FakePlatform:
    return FakePlatform(TAGGED)


async def post_waiting(desk: StrikeDesk, fake: FakePlatform) -> int:
    ctx = context(fake, "p1")
    assert ctx.opportunity.post.tags  # the post answered has tags of its own
    got = wire(await desk.strike(ctx, "post", "What we learned.", "Cancellation notes", nobody))
    assert got["status"] == "pending_approval", got
    return int(got["approval"]["id"])


def sent(fake: FakePlatform, tool: str) -> list[dict[str, Any]]:
    """The arguments of each ``tool`` call, exactly as they reached the platform server."""
    return [args for name, args in fake.arguments if name == tool]


def rewrite(desks: Desks, approval_id: int, **columns: str) -> None:
    """Change the approval's row in the record behind the desk's back."""
    sets = ", ".join(f"{name} = ?" for name in columns)
    with sqlite3.connect(desks.tmp / "gwanjong.db") as db:
        db.execute(f"UPDATE approvals SET {sets} WHERE id = ?", (*columns.values(), approval_id))


def only(desks: Desks) -> Approval:
    (approval,) = desks.approvals()
    return approval


async def test_the_platform_receives_exactly_the_approved_canonical_write(
    desks: Desks, fake: FakePlatform
) -> None:
    desk = desks.desk()
    approval_id = await post_waiting(desk, fake)
    waiting = only(desks)
    assert waiting.digest == hashlib.sha256(waiting.outgoing.encode("utf-8")).hexdigest()
    assert waiting.write.tags == ()  # none copied from the post answered
    edit = Edit(title="Cancellation, in practice", tags=("python", "async"))
    got = wire(await desk.decide(approval_id, "approve", Channel.TERMINAL, by="ops", edit=edit))
    assert got["status"] == "posted", got
    done = only(desks)
    assert done.status is ApprovalStatus.APPROVED and done.edited
    # the digest recorded covers the bytes recorded, and the call carried exactly them
    assert done.digest == hashlib.sha256(done.outgoing.encode("utf-8")).hexdigest()
    [call] = sent(fake, "write_post")
    assert call == done.write.arguments()
    assert call == {
        "title": "Cancellation, in practice",
        "body": f"What we learned.{FOOTER}",
        "tags": ["python", "async"],
    }
    assert done.write.canonical() == done.outgoing.encode("utf-8")
    # what was validated is what was sent
    [*_, checked] = sent(fake, "validate")
    assert checked["tags"] == ["python", "async"] and checked["title"] == call["title"]


async def test_tags_changed_after_approval_send_nothing(desks: Desks, fake: FakePlatform) -> None:
    desk = desks.desk()
    approval_id = await post_waiting(desk, fake)
    waiting = only(desks)
    tagged = waiting.write.edited(tags=("mcp", "architecture"))
    assert tagged.digest() != waiting.digest and not tagged.matches(waiting.digest)
    # the record's write gains tags behind the digest's back: the digest no longer covers it
    rewrite(desks, approval_id, outgoing=tagged.canonical().decode())
    got = wire(await desk.decide(approval_id, "approve", Channel.TERMINAL))
    assert got["status"] == "refused" and "no longer what was approved" in got["reason"], got
    assert sent(fake, "write_post") == [] and fake.writes == []


async def test_invalid_tags_are_refused_with_the_reason_and_the_approval_waits(
    desks: Desks, fake: FakePlatform
) -> None:
    desk = desks.desk()
    approval_id = await post_waiting(desk, fake)
    bad = Edit(tags=("Rust", "a", "b", "c", "d"))
    got = wire(await desk.decide(approval_id, "approve", Channel.TERMINAL, edit=bad))
    assert got["status"] == "refused", got
    assert "at most 4 tags; got 5" in got["reason"]
    assert "The tag 'Rust' is not allowed" in got["reason"], got["reason"]
    assert "lowercase letters or digits" in got["reason"]
    assert only(desks).status is ApprovalStatus.PENDING and fake.writes == []
    hidden = Edit(tags=("rust", "a\u202eb"))  # a character no tag needs: refused by name
    got = wire(await desk.decide(approval_id, "approve", Channel.TERMINAL, edit=hidden))
    assert got["status"] == "refused" and "The tag 2 carries U+202E" in got["reason"], got
    assert only(desks).status is ApprovalStatus.PENDING and fake.writes == []
    got = wire(
        await desk.decide(approval_id, "approve", Channel.TERMINAL, edit=Edit(tags=("rust",)))
    )
    assert got["status"] == "posted", got
    assert sent(fake, "write_post")[0]["tags"] == ["rust"]


async def test_a_comment_takes_no_title_or_tags(desks: Desks, fake: FakePlatform) -> None:
    desk = desks.desk()
    got = wire(await desk.strike(context(fake, "p1"), "comment", "Nice.", "", nobody))
    with pytest.raises(PlatformError, match="Only a new post has a title and tags"):
        await desk.decide(
            int(got["approval"]["id"]), "approve", Channel.TERMINAL, edit=Edit(tags=("x",))
        )
    assert fake.writes == []


async def test_an_approval_from_before_the_model_still_loads_and_sends(
    desks: Desks, fake: FakePlatform
) -> None:
    desk = desks.desk()
    approval_id = await post_waiting(desk, fake)
    waiting = only(desks)
    old = legacy_digest(waiting.title, waiting.text)  # as rows from before `outgoing` hold it
    rewrite(desks, approval_id, outgoing="", digest=old)
    legacy = only(desks)
    assert legacy.write == Outgoing.model_validate(
        {**waiting.write.model_dump(exclude={"links", "account"}), "account": ""}
    )
    got = wire(await desk.decide(approval_id, "approve", Channel.TERMINAL))
    assert got["status"] == "posted", got
    assert sent(fake, "write_post") == [waiting.write.arguments()]
    assert sent(fake, "write_post")[0]["tags"] == []  # none unless a person added them


def test_the_canonical_bytes_are_stable_and_cover_every_field() -> None:
    write = Outgoing(
        platform="devto",
        account="me",
        action="post",
        title="T",
        text="See https://example.com/a.",
        tags=("x",),
    )
    assert write.canonical() == (
        b'{"account":"me","action":"post","links":["https://example.com/a"],"platform":"devto",'
        b'"tags":["x"],"target":"","target_url":"","text":"See https://example.com/a.",'
        b'"title":"T","visibility":"public"}'
    )
    digests = {write.digest()}
    for change in (
        {"account": "other"},
        {"destination": "r/other"},
        {"sent_with": {"langs": "de"}},
        {"title": "U"},
        {"tags": ("y",)},
        {"tags": ()},
        {"text": "See."},
        {"target": "9"},
        {"platform": "reddit"},
    ):
        digests.add(write.edited(**change).digest())
    assert len(digests) == 10  # each field is covered
    assert Outgoing.load(write.canonical().decode()) == write
    # links without a scheme are listed too: a bare domain (a known top-level domain, as
    # platforms link them), a markdown link's //host; not an e-mail or a module path. A
    # user part goes with it (Bluesky links https://github.com"@evil.example/w: evil.example)
    text = 'See docs.rs/x, [a](//evil.example/b), a@b.com, os.path or README.md, github.com"@e.io/w'
    # An HTML entity is read as a browser reads it (Dev.to's HTML), a %-escape in a host too
    bare = write.edited(
        text=f"{text} bob.dev@evil.example. https://e.io)@evil.example &#104;ttps://%65vil.io/z"
        + r" [g](https:\/\/e.io/q) <a href=https:/e.io/s>"
    )
    assert bare.links == (
        "docs.rs/x",
        "//evil.example/b",
        "README.md",
        'github.com"@e.io/w',
        "bob.dev@evil.example",
        "https://e.io)@evil.example",
        "https://%65vil.io/z",
        "https://e.io/q",  # a markdown escape is read as the platform reads it
        "https:/e.io/s",  # a browser's https://e.io/s
    )
    assert link(bare.links[-3]) == "https://%65vil.io/z (host evil.io)"
    assert link(bare.links[-1]) == "https:/e.io/s"


@pytest.mark.parametrize(
    ("field", "approved", "now", "said", "restarted"),
    [
        ("me", "gwanjong_bot", "someone_else", "the account changed", True),  # the server's key
        # asked while the platform named no account (its users/me refused): shown as "our
        # account", so another replica's key, or a key saved since, is not what was approved
        ("me", "", "someone_else", "the account changed", True),
        ("destination", "r/python", "r/golang", "where a new post goes", True),  # its subreddit
        # a remote server restarted with another subreddit: the gateway's capabilities are old
        ("destination", "r/python", "r/golang", "now posts to r/golang", False),
        # what else it sends with the text (Bluesky: BLUESKY_LANGS), changed either way
        ("sent_with", {"langs": "en"}, {"langs": "ko"}, "what else a write sends", True),
        ("sent_with", {"langs": "en"}, {"langs": "ko"}, "now sends langs: ko", False),
    ],
)
async def test_a_write_the_platform_would_make_as_another_account_or_elsewhere_is_not_sent(
    desks: Desks,
    fake: FakePlatform,
    field: str,
    approved: object,
    now: object,
    said: str,
    restarted: bool,
) -> None:
    fake.profile = replace(fake.profile, **{field: approved})
    desk = desks.desk()
    approval_id = await post_waiting(desk, fake)
    # shown to the person, in the digest
    assert json.dumps(approved, separators=(",", ":")) in only(desks).outgoing
    fake.profile = replace(fake.profile, **{field: now})  # changed, the server restarted
    desk = desks.desk() if restarted else desk
    got = wire(await desk.decide(approval_id, "approve", Channel.TERMINAL))
    assert got["status"] == "refused" and said in got["reason"], got
    assert sent(fake, "write_post") == [] and fake.writes == []
    assert only(desks).status is ApprovalStatus.REFUSED


async def test_a_title_where_posts_have_none_is_shown_as_the_first_paragraph(
    desks: Desks, fake: FakePlatform
) -> None:
    # X, Bluesky and Mastodon posts have no title: their servers send it as the text's
    # first paragraph, so every surface shows it there, in "this exact text"
    untitled = {k: v for k, v in fake.profile.limits.items() if k != "title"}
    fake.profile = replace(fake.profile, limits=untitled)
    approval_id = await post_waiting(desks.desk(), fake)
    write = only(desks).write
    assert (write.title, write.text) == ("", f"Cancellation notes\n\nWhat we learned.{FOOTER}")
    with pytest.raises(PlatformError, match="posts have no title: edit the text"):
        await desks.desk().decide(approval_id, "approve", Channel.TERMINAL, edit=Edit(title="T"))
    got = wire(await desks.desk().decide(approval_id, "approve", Channel.TERMINAL))
    assert got["status"] == "posted", got
    assert sent(fake, "write_post") == [write.arguments()]


async def test_a_title_is_never_shown_apart_where_the_platform_never_said_it_takes_one(
    desks: Desks, fake: FakePlatform
) -> None:
    # its capabilities never answer (a configured footer lets the strike go on): whether its
    # server sends a title as a field or as the text's first paragraph is unknown, so no
    # approval may show it apart from the text and outside the length the person sees
    untitled = {k: v for k, v in fake.profile.limits.items() if k != "title"}
    fake.profile = replace(fake.profile, limits=untitled)
    fake.fail("capabilities", ErrorKind.INVALID_INPUT, count=100)
    got = wire(
        await desks.desk().strike(context(fake, "p1"), "post", "What we learned.", "Notes", nobody)
    )
    assert got["status"] == "refused", got
    assert "whether its posts have a title is unknown" in got["reason"], got
    assert desks.approvals() == [] and fake.writes == []
    # untitled, it goes on as the text alone: nothing is shown apart
    got = wire(
        await desks.desk().strike(context(fake, "p1"), "post", "What we learned.", "", nobody)
    )
    assert got["status"] == "pending_approval", got
    assert only(desks).write.title == ""


async def test_a_title_with_a_line_break_never_reaches_a_person(
    desks: Desks, fake: FakePlatform
) -> None:
    """A platform's title is one line: a title with a line break would not go out as the
    person saw it, so it is refused with what to do, before any approval, and as an edit."""
    desk = desks.desk()
    for title in ("Cancellation\nnotes", "Cancellation\u2028notes"):
        got = wire(
            await desk.strike(context(fake, "p1"), "post", "What we learned.", title, nobody)
        )
        assert got["status"] == "refused", got
        assert "Fake Forum titles are one line: remove the line breaks" in got["reason"], got
    assert desks.approvals() == [] and fake.writes == []
    approval_id = await post_waiting(desk, fake)
    edit = Edit(title="Cancellation\nnotes")
    got = wire(await desk.decide(approval_id, "approve", Channel.TERMINAL, edit=edit))
    assert got["status"] == "refused" and "titles are one line" in got["reason"], got
    assert only(desks).status is ApprovalStatus.PENDING and fake.writes == []
