"""The hand-offs a person confirms, and the author cool-down, in the store: one indexed
query finds the pending hand-offs of an opportunity, a confirmation closes exactly one,
dismissal and expiry take one out of the queue, and the cool-down counts and checks only
what engages an author (a hand-off once posted); on each engine (`record`)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import ClaimRequest, StrikeAction, StrikeStatus
from tests.gateway.rows import strike_row

NOW = 1_800_000_000.0
_KEYS = itertools.count()


def add(
    store: StrikeStore,
    opportunity: str,
    status: StrikeStatus,
    platform: str = "devto",
    action: str = "comment",
    now: float = NOW,
) -> int:
    return strike_row(
        store,
        intent_key=f"k{next(_KEYS)}",
        platform=platform,
        target="",
        opportunity=opportunity,
        action=action,
        content="hello",
        status=status,
        now=now,
    ).id


def check_pending_handoffs(store: StrikeStore) -> None:
    """Every `handoff` row of the opportunity on its platform, oldest first; a confirmation
    closes the one it names, once."""
    assert store.pending_handoffs("devto:1", "devto") == []
    comment = add(store, "devto:1", StrikeStatus.HANDOFF)
    upvote = add(store, "devto:1", StrikeStatus.HANDOFF, action="upvote")
    add(store, "devto:1", StrikeStatus.REFUSED)
    add(store, "devto:1", StrikeStatus.POSTED)
    add(store, "devto:2", StrikeStatus.HANDOFF)
    add(store, "devto:1", StrikeStatus.HANDOFF, platform="reddit")
    found = store.pending_handoffs("devto:1", "devto")
    assert [(r.id, r.action) for r in found] == [
        (comment, StrikeAction.COMMENT),
        (upvote, StrikeAction.UPVOTE),
    ]
    done = store.confirm_handoff(comment, result_url="https://x.test/c", approver="human")
    assert done is not None and done.status is StrikeStatus.POSTED and done.id == comment
    assert done.result_url == "https://x.test/c"
    assert store.confirm_handoff(comment, result_url="https://x.test/other") is None
    got = store.get(comment)
    assert got is not None and got.result_url == "https://x.test/c"
    assert [r.id for r in store.pending_handoffs("devto:1", "devto")] == [upvote]
    assert store.confirm_handoff(upvote) is not None
    assert store.pending_handoffs("devto:1", "devto") == []
    assert store.pending_handoffs("devto:3", "devto") == []


def _claim(action: str, target: str, status: StrikeStatus = StrikeStatus.PENDING) -> ClaimRequest:
    row = {
        "intent_key": f"k{next(_KEYS)}",
        "platform": "devto",
        "target": target if action != "post" else "",
        "author": "ann",
        "opportunity": f"devto:{target}",
        "action": action,
        "content_hash": "h",
        "content": f"{action} text {next(_KEYS)}",
        "mode": "live",
        "status": status,
    }
    return ClaimRequest(row=row, live=True, cap=None, interval_s=0, cooldown_days=7)


def check_author_cooldown(store: StrikeStore) -> None:
    """A comment to an author cools that author down for comments only (a new post from the
    same opportunity and an upvote pass; neither counts itself); a hand-off only once it is
    posted: one waiting (or dismissed) may never be."""
    first = store.decide(_claim("comment", "p1", StrikeStatus.HANDOFF), NOW, insert=True)
    assert first.row is not None, first
    post = store.decide(_claim("post", "p1"), NOW + 60, insert=True)
    assert post.row is not None and not post.refusal, post
    upvote = store.decide(_claim("upvote", "p2"), NOW + 120, insert=True)
    assert upvote.row is not None and not upvote.refusal, upvote
    waiting = store.decide(_claim("comment", "p3"), NOW + 150, insert=False)
    assert not waiting.refusal, waiting  # the hand-off waits: no one was engaged yet
    assert store.confirm_handoff(first.row.id, approver="human", now=NOW + 170) is not None
    again = store.decide(_claim("comment", "p3"), NOW + 180, insert=True)
    assert again.row is None and "cool-down is 7 days" in again.refusal, again
    assert f"record {first.row.id}" in again.refusal  # the comment, not the post or upvote
    later = store.decide(_claim("comment", "p3"), NOW + 8 * 86400, insert=False)
    assert not later.refusal, later


def check_dismiss_expire_and_claims(store: StrikeStore) -> None:
    """A dismissed hand-off leaves the queue and frees its target; one older than the cut
    expires (kept in history); the model's unproven claim is noted, the row still waits."""
    old = add(store, "devto:7", StrikeStatus.HANDOFF)
    fresh = add(store, "devto:7", StrikeStatus.HANDOFF, now=NOW + 100)
    claimed = store.note_claim(fresh, "https://x.test/c", "claimed, unverified", NOW + 101)
    assert claimed is not None and claimed.status is StrikeStatus.HANDOFF
    assert (claimed.claimed_at, claimed.claimed_url) == (NOW + 101, "https://x.test/c")
    assert claimed.policy[-1] == "claimed, unverified"
    assert store.expire_handoffs(NOW + 50, NOW + 200) == 1  # the old one only
    gone = store.get(old)
    assert gone is not None and gone.status is StrikeStatus.EXPIRED and gone.updated_at == NOW + 200
    assert [r.id for r in store.open_handoffs() if r.opportunity == "devto:7"] == [fresh]
    assert store.note_claim(old, "", "late", NOW + 300) is None  # expired: no longer waits
    out = store.close_handoff(fresh, StrikeStatus.DISMISSED, NOW + 300, reason="dismissed")
    assert out is not None and out.status is StrikeStatus.DISMISSED
    assert store.close_handoff(fresh, StrikeStatus.POSTED, NOW + 301) is None
    assert store.pending_handoffs("devto:7", "devto") == []
    assert store.same_intent(out.intent_key) is None  # holds its target no longer


@pytest.mark.parametrize(
    "check", [check_pending_handoffs, check_author_cooldown, check_dismiss_expire_and_claims]
)
def test_the_store_keeps_handoffs_and_the_author_cooldown(
    record: StrikeStore, check: Callable[[StrikeStore], None]
) -> None:
    check(record)


def test_pending_handoffs_is_one_indexed_lookup(tmp_path: Path) -> None:
    """The plan of the statement `pending_handoffs` really runs (caught on the store's own
    connection as SQLite expands it), not of a copy of its text."""
    with closing(StrikeStore(tmp_path / "gwanjong.db")) as store:
        for i in range(50):
            add(store, f"devto:{i}", StrikeStatus.POSTED)
        wanted = add(store, "devto:1", StrikeStatus.HANDOFF)
        store.engine.x("ANALYZE")
        ran: list[str] = []
        store.engine.db.set_trace_callback(ran.append)
        try:
            found = store.pending_handoffs("devto:1", "devto")
        finally:
            store.engine.db.set_trace_callback(None)
        assert [r.id for r in found] == [wanted]
        [query] = ran  # one statement, and it is the lookup
        assert query.lstrip().upper().startswith("SELECT"), query
        plan = store.engine.x(f"EXPLAIN QUERY PLAN {query}").fetchall()
        details = " ".join(str(row["detail"]) for row in plan)
        # a search through the index, not a scan of the table (nor of the index)
        assert "SEARCH strikes USING INDEX strikes_opportunity" in details, details
