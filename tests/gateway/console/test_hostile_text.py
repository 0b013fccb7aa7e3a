"""The console against the hostile corpus: an approval's page shows the whole text, every
hidden character marked and counted, the footer included; a list says what it leaves
out; the hand-offs' copy source holds the whole exact text."""

from __future__ import annotations

import html
from dataclasses import asdict

import pytest

from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.record.rows.approval_rows import NewApproval
from gwanjong_gateway.record.store import StrikeStore
from tests.fakes.platform import FakePlatform
from tests.gateway.console.helpers import TOPIC, Served, sign_in, strike
from tests.hostile_approvals import CORPUS, REFUSED, approval_with, assert_seen, with_footer

pytestmark = pytest.mark.anyio


async def stored(gw: Gateway, now: float, text: str, n: int) -> int:
    """An approval of ``text`` put in the record as it is (the chain would refuse most of
    this corpus; a page must still show whatever the record holds)."""
    a = approval_with(text, target=f"p{n}", lock_key=f"k{n}", created_at=now, expires_at=now + 3600)
    fields = asdict(a)
    for gone in ("id", "status", "created_at"):
        fields.pop(gone)
    made, _ = await gw.records.run(StrikeStore.open_approval, now, NewApproval(**fields))
    return made.id


async def test_every_hostile_text_is_shown_whole_and_marked(s: Served) -> None:
    await sign_in(s)
    now = s.console.clock()
    ids = {
        name: await stored(s.gw, now, with_footer(t), n)
        for n, (name, t) in enumerate(CORPUS.items())
    }
    for name, approval_id in ids.items():
        page = (await s.http.get(f"/approvals/{approval_id}")).text
        view = page.split("<textarea", 1)[0]
        assert_seen(view, with_footer(CORPUS[name]), escaped=True)
        assert ("invisible character" in view) == (name in REFUSED), name
        assert "more characters not shown" not in view
    listing = (await s.http.get("/approvals")).text
    assert "more characters not shown here: open it" in listing  # the 10,000 one
    assert "⟦4,200 blank lines⟧" in listing and html.escape("(tail)") in listing


async def test_an_edit_with_a_tag_character_is_refused_on_approve(
    s: Served, forum: FakePlatform
) -> None:
    from tests.gateway.console.helpers import approval, csrf_of, post

    answer = await strike(s.client, "devto", "Rust async", "post", "Fine words.", TOPIC)
    approval_id = int(answer["approval"]["id"])
    await sign_in(s)
    page = (await s.http.get(f"/approvals/{approval_id}")).text
    smuggled = (await approval(s.gw, approval_id)).text.replace(
        "Fine words.", "Fine words.\U000e0049\U000e0067"
    )
    done = await post(
        s, f"/approvals/{approval_id}", csrf_of(page), decision="approve", text=smuggled
    )
    assert "U+E0049 TAG LATIN CAPITAL LETTER I at character 12" in done.text, done.text
    assert forum.writes == []


async def test_a_link_labelled_by_platform_text_names_where_it_goes(s: Served) -> None:
    """A post's title is the label of its link on the approval and inbox pages: a title
    that reads like another link must not hide the host the link opens."""
    await sign_in(s)
    now = s.console.clock()
    a = approval_with(
        "Fine words.", target="p9", lock_key="k9", created_at=now, expires_at=now + 3600
    )
    post = {"id": "p9", "title": "https://github.com/rust-lang/rust", "author": "eve", "body": "x"}
    fields = {**asdict(a), "post": {**post, "url": "https://evil.example/login"}}
    for gone in ("id", "status", "created_at"):
        fields.pop(gone)
    made, _ = await s.gw.records.run(StrikeStore.open_approval, now, NewApproval(**fields))
    page = (await s.http.get(f"/approvals/{made.id}")).text
    label = page.split('href="https://evil.example/login"', 1)[1].split("</p>", 1)[0]
    assert "https://github.com/rust-lang/rust</a>" in label and "evil.example" in label
