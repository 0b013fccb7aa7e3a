"""The console's Hand-offs page (fast tier, the fake forum in-process): hand-offs are named
h12 and approvals a7 in its URLs and labels, the model's unverified claim is shown on the
card, a person dismisses one (out of the queue, kept in history), and one past
`[review] handoff_expire_after_s` is gone (the gateway's injected wall clock). The same in
Chromium over the sandbox: tests/browser/test_console.py."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gwanjong_gateway.cli import history
from gwanjong_gateway.cli.review import view
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_shared.contract import ActionRule
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.gateway.console.helpers import ORIGIN, Served, post, serving, sign_in
from tests.gateway.helpers import drafted, gateway_of
from tests.mcp import call

pytestmark = pytest.mark.anyio
TEXT = "Structured concurrency would help here: github.com@e.io/sc"


def gateway(forum: FakePlatform, tmp_path: Path, clock: FakeClock) -> tuple[Gateway, Any]:
    tables = {"review": {"handoff_expire_after_s": 3600}}
    return gateway_of(tmp_path, forum, clock=clock, wall=clock.time, tables=tables)


async def handed(s: Served) -> tuple[str, int]:
    """A comment hand-off on the fake forum: (the model's opportunity id, its record)."""
    oid = await drafted(s.client, limit=8)
    got = await call(s.client, "strike", opportunity_id=oid, action="comment", content=TEXT)
    assert got["status"] == "handoff", got
    return oid, int(got["record"])


async def test_a_handoff_dismissed_from_the_console_or_past_its_time_leaves_the_queue(
    forum: FakePlatform, tmp_path: Path, clock: FakeClock
) -> None:
    gw, mcp = gateway(forum, tmp_path, clock)
    for pid, found in forum.posts.items():  # the platform's link: it names where it goes
        forum.posts[pid] = found.model_copy(update={"url": f"https://dev.to@evil.example/{pid}"})
    async with serving(gw, mcp) as s:
        oid, record = await handed(s)
        csrf = await sign_in(s)
        page = (await s.http.get("/handoffs")).text
        assert f"Hand-off h{record}: comment on devto" in page and "(host evil.example)" in page
        row = await s.gw.records.run(StrikeStore.get, record)
        assert row is not None
        shown = "\n".join(view.handoff_details(row))
        assert (
            "evil.example) on devto" in shown and "  link: github.com@e.io/sc (host e.io)" in shown
        )
        assert "github.com@e.io/sc (host e.io)</code>" in page  # the links, as an approval's
        listed = history.format_strike(row, 80)  # gwanjong history: the target, the links
        assert "      https://dev.to@evil.example/1002 (host evil.example)" in listed
        assert "        link: github.com@e.io/sc (host e.io)" in listed
        listed = view.table([view.handoff_item(row, 3600, row.created_at)], clock.time(), False)
        assert "(host evil.example)\n" in "\n".join(listed)
        assert f'action="/handoffs/h{record}/dismiss"' in page and "claimed, unverified" not in page
        # the model says it was posted: no proof on the forum, so the card says so
        claimed = "https://dev.to@other.example/gwanjong_bot/77"  # its host said, as a target's
        said = await call(
            s.client, "strike", opportunity_id=oid, action="confirm_handoff", content=claimed
        )
        assert said["status"] == "handoff", said
        page = (await s.http.get("/handoffs")).text
        assert "claimed, unverified" in page and f"{claimed} (host other.example)" in page
        row = await s.gw.records.run(StrikeStore.get, record)
        assert row is not None and f"{claimed} (host other.example)" in view.claim_note(row)
        refused = await s.http.post(f"/handoffs/h{record}/dismiss", data={}, headers=ORIGIN)
        assert refused.status_code == 403  # no CSRF token: nothing changed
        bare = await s.http.post(f"/handoffs/{record}/dismiss", data={"csrf": csrf}, headers=ORIGIN)
        assert bare.status_code in (404, 405)  # a bare number names no hand-off here
        done = await post(s, f"/handoffs/h{record}/dismiss", csrf)
        assert done.status_code == 303 and done.headers["location"] == "/handoffs"
        assert "No hand-off waits." in (await s.http.get("/handoffs")).text
        row = await s.gw.records.run(StrikeStore.get, record)
        assert row is not None and row.status is StrikeStatus.DISMISSED
        page = (await s.http.get(f"/history/{record}")).text  # the record names the host too
        assert "dismissed" in page and "(host evil.example)</a></dd>" in page
        again = await post(s, f"/handoffs/h{record}/dismiss", csrf)
        assert again.status_code == 409 and "is dismissed" in again.text
        # handed over anew, then left past `handoff_expire_after_s`
        _, record = await handed(s)
        assert f"Hand-off h{record}" in (await s.http.get("/handoffs")).text
        clock.advance(3599)
        assert f"Hand-off h{record}" in (await s.http.get("/handoffs")).text
        clock.advance(2)
        page = (await s.http.get("/handoffs")).text
        assert f"Hand-off h{record}" not in page and "No hand-off waits." in page
        row = await s.gw.records.run(StrikeStore.get, record)
        assert row is not None and row.status is StrikeStatus.EXPIRED
        assert "expired" in (await s.http.get(f"/history/{record}")).text


async def test_a_new_posts_handoff_names_where_it_goes(
    forum: FakePlatform, tmp_path: Path, clock: FakeClock
) -> None:
    """The console, `review list` and `show` give a new post's hand-off the place it goes, as
    an approval's: never the post it was drafted from, which read as where to post it."""
    human = ActionRule(allowed="human", reason="people only")
    rules = {**forum.profile.rules, "write_post": human}
    forum.profile = replace(forum.profile, destination="r/fake", rules=rules)
    gw, mcp = gateway(forum, tmp_path, clock)
    async with serving(gw, mcp) as s:
        oid = await drafted(s.client, limit=8)
        got = await call(
            s.client, "strike", opportunity_id=oid, action="post", content=TEXT, title="T"
        )
        assert got["status"] == "handoff" and "open" not in got, got
        assert "where it goes: a new post in r/fake on devto" in got["next"], got
        claim = {"action": "confirm_handoff", "content": "https://dev.to/gwanjong_bot/77"}
        said = await call(s.client, "strike", opportunity_id=oid, **claim)
        assert said["status"] == "handoff" and "open" not in said, said
        row = await s.gw.records.run(StrikeStore.get, int(got["record"]))
        await sign_in(s)
        page = (await s.http.get("/handoffs")).text
        record = (await s.http.get(f"/history/{got['record']}")).text
    assert row is not None and "for a new post in r/fake on devto ·" in page
    assert "<dt>Target</dt><dd>a new post in r/fake on devto</dd>" in record
    assert row.target_url not in page  # no "Open where to post it" to the drafted-from post
    item = view.handoff_item(row, 3600, row.created_at)
    assert item.data["target"] == "a new post in r/fake on devto", item.data
    assert "  where:    a new post in r/fake on devto" in view.handoff_details(row)
    assert "      a new post in r/fake on devto" in history.format_strike(row, 80)
