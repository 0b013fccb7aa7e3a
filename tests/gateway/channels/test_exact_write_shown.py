"""Every surface shows a new post's title, tags and where it goes (issue 34, one exact write): the dialog
message, the one-approval page, the app card's data, `gwanjong review show` and `list`.
The approval is a real record row (made by the desk over the fake platform) whose write
carries tags, as an approval's row does once a person added them."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from gwanjong_gateway.channels.apps import card_view
from gwanjong_gateway.channels.page import one_approval_page
from gwanjong_gateway.cli.review import view
from gwanjong_gateway.rules.approvals import Approval
from gwanjong_gateway.strike.elicitation import message
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.gateway.strike.test_approvals import Desks, desks_for, waiting
from tests.gateway.strike.test_exact_write import TAGGED, only, post_waiting

pytestmark = pytest.mark.anyio
TAGS = ("python", "async")
#: a link whose host looks Latin and is not (Cyrillic і), and one whose host follows a user
#: part: every surface says where each goes
LINK, ASCII = "https://g\u0456thub.com/x", "(host xn--gthub-n2e.com)"
AT, HOST = "https://github.com@evil.example/y", "(host evil.example)"
#: links without a scheme, which Bluesky and X link all the same (adding https://); X links a
#: markdown label too
BARE, LABEL = "g\u0456thub.com/z", "github.com/x"
#: where the platform said a new post goes (Reddit: its REDDIT_POST_SUBREDDIT)
WHERE = "a new post in r/fake on"
#: what else the platform sends with the text (Dev.to: its AI disclosure level)
ALSO = {"ai_disclosure_level": "fully_autonomous"}


@pytest.fixture
async def tagged(tmp_path: Path) -> AsyncIterator[tuple[Desks, Approval]]:
    fake = FakePlatform(replace(TAGGED, destination="r/fake", sent_with=ALSO))
    async for desks in desks_for(tmp_path, fake, FakeClock()):
        approval_id = await post_waiting(desks.desk(), fake)
        write = only(desks).write
        write = write.edited(tags=TAGS, text=f"{write.text}\n[{LABEL}]({LINK}), {AT} {BARE}")
        with sqlite3.connect(desks.tmp / "gwanjong.db") as db:
            db.execute(
                "UPDATE approvals SET outgoing = ?, digest = ? WHERE id = ?",
                (write.canonical().decode(), write.digest(), approval_id),
            )
        yield desks, only(desks)


async def test_every_surface_shows_title_tags_account_and_links(
    tagged: tuple[Desks, Approval],
) -> None:
    desks, approval = tagged
    now = desks.clock.time()
    text = message(approval)  # the dialog
    assert WHERE in text and "Also sent: ai_disclosure_level: fully_autonomous" in text
    assert "Title: Cancellation notes" in text and "Tags: python, async" in text
    assert (
        "Sent as: gwanjong_bot, public" in text
        and f"Link: {LABEL}\nLink: {LINK} {ASCII}\nLink: {AT} {HOST}\nLink: {BARE} {ASCII}" in text
    )
    page = one_approval_page(approval, now, "csrf")
    assert WHERE in page and "<code>ai_disclosure_level: fully_autonomous</code>" in page
    assert "<dt>Tags</dt><dd>" in page
    assert '<code class="tag">python</code> <code class="tag">async</code>' in page
    assert "Cancellation notes" in page and "gwanjong_bot, public" in page
    assert (
        f"<code>{LINK} {ASCII}</code><br><code>{AT} {HOST}</code><br><code>{BARE} {ASCII}" in page
    )
    card = card_view(approval, "token")
    assert WHERE in card["where"]
    assert card["shown"]["also"] == ["ai_disclosure_level: fully_autonomous"]
    assert card["tags"] == list(TAGS) and card["title"] == "Cancellation notes"
    assert (card["account"], card["visibility"]) == ("gwanjong_bot", "public")
    assert card["shown"]["tags"] == list(TAGS) and card["shown"]["as"] == "gwanjong_bot, public"
    assert card["shown"]["links"] == [LABEL, f"{LINK} {ASCII}", f"{AT} {HOST}", f"{BARE} {ASCII}"]
    shown = "\n".join(view.details(approval, now))  # review show
    assert WHERE in shown and "  also sent: ai_disclosure_level: fully_autonomous" in shown
    assert "  | Title: Cancellation notes" in shown and "  | Tags: python, async" in shown
    assert "as gwanjong_bot" in shown and approval.digest in shown
    assert f"  link: {LINK} {ASCII}\n  link: {AT} {HOST}\n  link: {BARE} {ASCII}" in shown
    assert "--title T] [--tags a,b]" in shown  # how to edit them
    listed = "\n".join(view.table([view.approval_item(approval, now)], now, False))
    assert f"@ {WHERE} devto\n" in listed  # not the post it was drafted from
    assert "| title: Cancellation notes" in listed and "| tags: python, async" in listed
    data = view.approval_item(approval, now).data
    assert data["title"] == "Cancellation notes" and data["tags"] == list(TAGS)


async def test_every_surface_names_the_host_a_reply_goes_to(tmp_path: Path) -> None:
    """A reply's target is the platform's link to the post: a remote Mastodon status keeps
    any link on its own host, such as https://github.com@evil.example/y, which reads as
    github.com. Every surface says where it goes, as it does for the write's links."""
    fake = FakePlatform(TAGGED)
    pid = fake.add_post("p9", "A post", "Some text.")
    far = f"{AT}/{'x' * 500}"  # the host is said at the end: no surface cuts it off
    fake.posts[pid] = fake.posts[pid].model_copy(update={"url": far})
    async for desks in desks_for(tmp_path, fake, FakeClock()):
        await waiting(desks.desk(), fake, "p9", "Hello there.")
        approval, now = only(desks), desks.clock.time()
        where = f"a reply to {far} {HOST} on devto"
        assert where in message(approval) and where in card_view(approval, "token")["where"]
        listed = view.table([view.approval_item(approval, now)], now, False)
        shown = view.details(approval, now) + listed  # review show and list: every line
        assert where in "\n".join(shown) and [s for s in shown if AT in s and HOST not in s] == []
        assert where in one_approval_page(approval, now, "csrf")
