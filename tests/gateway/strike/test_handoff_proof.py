"""Hand-offs belong to the person (issue 34): the model's `confirm_handoff` closes one only
with proof read from the platform (a comment by our account on that post, holding the
text's start); otherwise its claim is noted as unverified and the hand-off stays in the
person's queue. A person dismisses one; one left too long expires (the injected clock);
only a posted one starts the author cool-down. The gateway over MCP, on the fake forum
(comments and likes are hand-offs there); the same through the real servers and the
sandbox in tests/gateway/strike/test_handoff_proof_sandbox.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import Strike, StrikeStatus
from gwanjong_shared.contract.errors import PlatformError
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.gateway.helpers import gateway_of
from tests.gateway.strike.test_handoff_choice import COMMENT, call
from tests.gateway.strike.test_strike import drafted
from tests.mcp import until

pytestmark = pytest.mark.anyio
DAY = 86400.0


@dataclass
class Rig:
    client: Client[Any]
    gw: Gateway
    forum: FakePlatform
    clock: FakeClock
    state_dir: Path

    def row(self, record: int) -> Strike:
        with closing(StrikeStore(self.state_dir / "gwanjong.db")) as store:
            row = store.get(record)
        assert row is not None
        return row

    def open_ids(self) -> list[int]:
        with closing(StrikeStore(self.state_dir / "gwanjong.db")) as store:
            return [r.id for r in store.open_handoffs()]

    def ours(self, record: int, tail: str = "") -> str:
        """Our account comments on hand-off ``record``'s post, its text (footer included)
        and ``tail``, as a person would by hand: the link of that comment."""
        row = self.row(record)
        return str(self.forum.record("write_comment", row.target, body=row.content + tail).url)


@pytest.fixture
async def r(
    forum: FakePlatform, tmp_path: Path, clock: FakeClock, request: pytest.FixtureRequest
) -> AsyncIterator[Rig]:
    """The gateway on ``forum`` and a fake clock; ``[review]`` the test's indirect param."""
    review = getattr(request, "param", None)
    tables = {"review": review} if review else None
    gw, mcp = gateway_of(tmp_path, forum, clock=clock, wall=clock.time, tables=tables)
    async with Client(mcp) as client:
        yield Rig(client, gw, forum, clock, tmp_path)


EXPIRE_IN_AN_HOUR = pytest.mark.parametrize("r", [{"handoff_expire_after_s": 3600}], indirect=True)


async def handed(
    r: Rig, topic: str = "rust async cancellation", title: str = "Rust async"
) -> tuple[str, int]:
    oid = await drafted(r.client, topic, title)
    got = await call(r.client, oid, "comment", content=COMMENT)
    assert got["status"] == "handoff", got
    return oid, int(got["record"])


@pytest.mark.parametrize(
    "link",
    [
        "javascript:alert(1)",
        "https://dev.to/someone/another-post-entirely",  # a URL of another post
        "https://dev.to/gwanjong_bot/999999",  # a URL the platform does not know
        "https://dev.to/gwanjong_bot/1015\x1b]52;c;aGk=\x07",  # an escape sequence inside
    ],
)
async def test_the_models_word_never_closes_a_handoff(r: Rig, link: str) -> None:
    oid, record = await handed(r)
    r.ours(record)  # even with our comment on the post: a wrong link proves nothing
    got = await call(r.client, oid, "confirm_handoff", handoff=record, content=link)
    assert got["status"] == "handoff" and got["record"] == record, got
    assert "Not recorded as posted" in got["reason"] and "unverified" in got["reason"]
    assert f"gwanjong review done h{record}" in got["next"], got
    row = r.row(record)
    assert row.status is StrikeStatus.HANDOFF and row.result_url == "" and row.claimed_at
    kept = link if link.startswith("https://") and "\x1b" not in link else ""
    assert row.claimed_url == kept  # a well-formed link, or nothing
    assert "\x1b" not in repr(row.policy) and "javascript" not in row.claimed_url
    assert r.open_ids() == [record]  # still in the person's queue
    assert [w.action for w in r.forum.writes] == ["write_comment"]  # ours, by hand


async def test_no_comment_of_ours_is_no_proof(r: Rig) -> None:
    oid, record = await handed(r)
    got = await call(r.client, oid, "confirm_handoff", handoff=record)
    assert got["status"] == "handoff" and "no comment by gwanjong_bot" in got["reason"], got
    # the same text under another account is not ours either
    target = r.row(record).target
    r.forum.comments[target].append(
        r.forum.comments[target][0].model_copy(update={"id": "x1", "body": r.row(record).content})
    )
    again = await call(r.client, oid, "confirm_handoff", handoff=record)
    assert again["status"] == "handoff", again
    assert r.row(record).status is StrikeStatus.HANDOFF
    r.ours(record)  # then ours: proof without a link keeps the post's link
    got = await call(r.client, oid, "confirm_handoff")
    assert got["status"] == "posted" and got["url"] == r.row(record).target_url, got


async def test_our_comment_on_that_post_closes_it_with_proof(r: Rig) -> None:
    oid, record = await handed(r)
    link = r.ours(record, "\n\n(posted by hand)")
    got = await call(r.client, oid, "confirm_handoff", handoff=record, content=link)
    assert got["status"] == "posted" and got["url"] == link, got
    assert "found it on devto" in got["reason"]
    row = r.row(record)
    assert row.status is StrikeStatus.POSTED and row.result_url == link
    assert row.result_id and any("hand-off proven" in str(p) for p in row.policy)
    assert r.open_ids() == []


async def test_a_person_dismisses_a_handoff_it_stays_in_history(r: Rig) -> None:
    oid, record = await handed(r)
    r.ours(record)  # dismissed first: proof that comes later closes nothing
    dismissed = await r.gw.desk.handoffs.dismiss(record, by="alice")
    assert dismissed.status is StrikeStatus.DISMISSED and dismissed.confirmed_by == "alice"
    assert r.open_ids() == [] and r.row(record).status is StrikeStatus.DISMISSED
    late = await call(r.client, oid, "confirm_handoff", handoff=record)
    assert "is dismissed, not waiting for a person" in late["error"], late
    with pytest.raises(PlatformError, match=f"Hand-off h{record} is dismissed"):
        await r.gw.desk.handoffs.done(record, "https://dev.to/x/1", by="alice")
    # a dismissed hand-off holds its target no longer: the model may hand it over again
    again = await call(r.client, oid, "comment", content=COMMENT)
    assert again["status"] == "handoff" and again["record"] != record, again


async def test_a_handoff_dismissed_while_its_proof_is_read_is_not_called_posted(r: Rig) -> None:
    oid, record = await handed(r)
    r.ours(record)
    r.forum.hang("get_comments")  # the proof is being read when the person dismisses it
    reads = r.forum.calls.count("get_comments")
    got: dict[str, Any] = {}
    async with anyio.create_task_group() as tg:

        async def confirm() -> None:
            got.update(await call(r.client, oid, "confirm_handoff", handoff=record))

        tg.start_soon(confirm)
        await until(lambda: r.forum.calls.count("get_comments") > reads)
        await r.gw.desk.handoffs.dismiss(record, by="alice")
        r.forum.release()
    assert got.get("status") == "refused", got
    assert got["reason"] == f"Hand-off h{record} is dismissed; nothing recorded.", got
    assert r.row(record).status is StrikeStatus.DISMISSED


@EXPIRE_IN_AN_HOUR
async def test_a_handoff_expires_after_its_time(r: Rig) -> None:
    oid, record = await handed(r)
    r.clock.advance(3600 - 1)
    assert await r.gw.desk.handoffs.sweep() == 0 and r.open_ids() == [record]
    r.clock.advance(2)
    r.ours(record)  # too late: an expired hand-off is not closed by proof either
    got = await call(r.client, oid, "confirm_handoff", handoff=record)
    assert "is expired, not waiting for a person" in got["error"], got
    row = r.row(record)
    assert row.status is StrikeStatus.EXPIRED and "expired" in row.reason
    assert r.open_ids() == []


@EXPIRE_IN_AN_HOUR
async def test_a_handoff_past_its_time_holds_its_target_no_more(r: Rig) -> None:
    """Nothing read the queue since it expired: the next strike on that target sweeps first,
    so it is handed over anew, not answered as a duplicate of the stale one."""
    oid, record = await handed(r)
    r.clock.advance(3601)
    again = await call(r.client, oid, "comment", content=COMMENT)
    assert again["status"] == "handoff" and again["record"] != record, again
    assert r.row(record).status is StrikeStatus.EXPIRED


async def test_the_default_expiry_is_a_week(r: Rig) -> None:
    _, record = await handed(r)
    r.clock.advance(7 * DAY - 1)
    assert await r.gw.desk.handoffs.sweep() == 0
    r.clock.advance(2)
    assert await r.gw.desk.handoffs.sweep() == 1
    assert r.row(record).status is StrikeStatus.EXPIRED


async def test_only_a_posted_handoff_starts_the_author_cooldown(r: Rig) -> None:
    first_oid, first = await handed(r)
    # a waiting hand-off to ferris_fan does not block another to them
    second_oid, second = await handed(r, "tokio loom testing", "loom")
    await r.gw.desk.handoffs.dismiss(second, by="")
    r.ours(first)
    posted = await call(r.client, first_oid, "confirm_handoff", handoff=first)
    assert posted["status"] == "posted", posted
    # now the author was engaged: the next comment to them is cooled down
    cooled = await call(r.client, second_oid, "comment", content="Loom is great for this.")
    assert cooled["status"] == "refused", cooled
    assert "ferris_fan" in cooled["reason"] and "cool-down is 7 days" in cooled["reason"]
    assert r.row(int(cooled["record"])).status is StrikeStatus.REFUSED
