"""strike's chain of checks, one at a time, against the fake platform (tests/fakes: the
real server kit over a platform in memory; no sandbox, no SDK).

Each test sets up the one condition a check refuses on and shows that this check, and no
later one, decided: the record row says why, and the platform saw only the calls that
come before that check.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from gwanjong_gateway.config import parse
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import Approval
from gwanjong_gateway.rules.ledger import StrikeAction, StrikeStatus
from gwanjong_gateway.scout.scout_results import RuleView
from gwanjong_gateway.scout.state import DraftContext, Opportunity
from gwanjong_gateway.strike import checks as strike_checks
from gwanjong_gateway.strike.attempt import Answer, Ask, Attempt, Decision, Refuse
from gwanjong_gateway.strike.desk import StrikeDesk
from gwanjong_gateway.strike.locks import KeyedLocks
from gwanjong_shared.contract import ActionRule, Limit
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import Profile
from tests.gateway.helpers import config_text
from tests.gateway.rows import history
from tests.hostile_approvals import CORPUS, REFUSED

pytestmark = pytest.mark.anyio
NAME = "devto"  # a bundled name, so the config needs no command; the server is the fake
FOOTER = "\n\n-- drafted with a bot"


#: A platform where a program may do everything: each test adds the one refusal it is about.
OPEN_FORUM = Profile(
    name=NAME,
    label="Fake Forum",
    url="https://x.test",
    rules={
        "write_post": ActionRule(allowed="auto", reason="Posts are open to programs."),
        "write_comment": ActionRule(allowed="auto", reason="Comments are open to programs."),
        "upvote": ActionRule(allowed="auto", reason="Likes are open to programs."),
    },
    limits={
        "title": Limit(max=128, unit="chars"),
        "body": Limit(max=500, unit="chars"),
        "comment": Limit(max=500, unit="chars"),
    },
)


@dataclass
class Bench:
    desk: StrikeDesk
    fake: FakePlatform
    store: Path

    def rows(self) -> list[Any]:
        return history(self.store.parent)


def context(
    fake: FakePlatform, key: str = "p1", author: str = "alice", **validation: Any
) -> DraftContext:
    """A drafted strike on the fake's post ``key`` (made on first use, by ``author``)."""
    post_id = fake.ids.get(key) or fake.add_post(key, "A post", "Some text.", author=author)
    post = fake.posts[post_id]
    return DraftContext(
        opportunity=Opportunity(id=f"{NAME}:{post_id}", post=post, score=1.0, reason="test"),
        capabilities=None,
        validation={k: RuleView(**v) for k, v in validation.items()},
    )


class Says:
    """A person who answers every approval dialog with ``decision`` (after reading it)."""

    def __init__(self, decision: Decision, why: str = "") -> None:
        self.decision: Decision = decision
        self.why = why
        self.asked: list[Approval] = []

    def answer_for(self, approval: Approval, now: float) -> Ask | None:
        return None

    async def ask(self, approval: Approval, token: str) -> Ask:
        self.asked.append(approval)
        return Ask(self.decision, self.why)


accept = Says("approve")


def bodies(fake: FakePlatform) -> list[str]:
    return [str(w.data.get("body", "")) for w in fake.writes]


def wire(result: BaseModel) -> dict[str, Any]:
    """A strike result as the model receives it (the tool's structured content)."""
    return result.model_dump(mode="json")


async def bench_for(
    tmp_path: Path,
    fake: FakePlatform,
    writes: str = "live",
    tables: dict[str, dict[str, Any]] | None = None,
    daily: dict[str, int] | None = None,
) -> AsyncIterator[Bench]:
    platform: dict[str, Any] = {"min_interval_s": 0, "disclosure": FOOTER}
    if daily is not None:
        platform["daily"] = daily
    config = parse(config_text(tmp_path, [NAME], writes, tables=tables, platform=platform))
    upstreams = Upstreams(config, environ={}, transports={NAME: fake.server()})
    records = Records(tmp_path / "gwanjong.db")
    try:
        yield Bench(StrikeDesk(config, upstreams, records), fake, tmp_path / "gwanjong.db")
    finally:
        with anyio.CancelScope(shield=True):
            await upstreams.close_all()
        records.close()


@pytest.fixture
async def bench(tmp_path: Path, fake: FakePlatform) -> AsyncIterator[Bench]:
    async for b in bench_for(tmp_path, fake):
        yield b


def test_the_chain_runs_in_the_documented_order() -> None:
    names = [check.__name__ for check in strike_checks.CHAIN]
    assert names == [
        "paused",
        "opted_out",
        "never_allowed",
        "plain_text",
        "disclosure",
        "approved_text",
        "early_rules",
        "earlier_claim",
        "awaiting",
        "limits",
        "platform_rules",
        "fits",
        "platform_allows",
        "human_only",
        "dry_run",
        "confirm",
        "budget",
        "claim",
        "write",
    ]
    # the lock needs the final text
    assert strike_checks.OPEN.index(strike_checks.disclosure) < len(strike_checks.OPEN)


async def test_a_clean_comment_passes_every_check_and_is_written(bench: Bench) -> None:
    got = wire(await bench.desk.strike(context(bench.fake), "comment", "Nice post.", "", accept))
    site = bench.fake.profile  # the URL the platform gave its write:
    assert got["url"] == f"{site.url}/{site.me}/{bench.fake.writes[0].data['id']}", got
    assert got["status"] == "posted", got
    assert bench.fake.asked() == ["validate", "write_comment"]  # validated once, written once
    assert bodies(bench.fake) == ["Nice post." + FOOTER]
    [row] = bench.rows()
    assert row.status is StrikeStatus.POSTED and row.action == "comment"
    assert "disclosure appended" in row.policy and row.policy[-1] == "posted"
    # earlier_claim: the same comment again is a duplicate, and the platform is not asked
    again = wire(await bench.desk.strike(context(bench.fake), "comment", "Nice post.", "", accept))
    assert again["status"] == "duplicate" and again["earlier"]["url"] == got["url"], again
    assert bench.fake.asked() == ["validate", "write_comment"]


async def refused_by(bench: Bench, got: dict[str, Any], words: str) -> None:
    assert got["status"] == "refused" and words in got["reason"], got
    assert not bench.fake.writes
    row = bench.rows()[0]
    assert row.status is StrikeStatus.REFUSED and row.policy[-1] == f"refused: {got['reason']}"


async def test_never_allowed_then_paused_refuse_before_the_platform_is_asked(
    bench: Bench,
) -> None:
    ctx = context(bench.fake, comment={"allowed": "never", "reason": "comments are closed"})
    got = wire(await bench.desk.strike(ctx, "comment", "Hi.", "", accept))
    await refused_by(bench, got, "comments are closed")
    await bench.desk.records.run(StrikeStore.record_failure, NAME, "boom", 1)
    got = wire(await bench.desk.strike(context(bench.fake, "p2"), "comment", "Hi.", "", accept))
    await refused_by(bench, got, "are paused")
    assert bench.fake.asked() == []


async def test_opted_out_refuses_a_comment_but_not_a_new_post(
    tmp_path: Path, fake: FakePlatform
) -> None:
    async for b in bench_for(tmp_path, fake, tables={"safety": {"opt_out": [f"{NAME}:alice"]}}):
        got = wire(await b.desk.strike(context(fake), "comment", "Hi.", "", accept))
        await refused_by(b, got, "opt-out list")
        assert fake.asked() == []
        posted = wire(await b.desk.strike(context(fake), "post", "A new post.", "Title", accept))
        assert posted["status"] == "posted", posted


@pytest.mark.parametrize("name", list(REFUSED))
async def test_plain_text_refuses_hidden_characters_naming_which_and_where(
    bench: Bench, name: str
) -> None:
    got = wire(await bench.desk.strike(context(bench.fake), "comment", CORPUS[name], "", accept))
    first, at = REFUSED[name]
    await refused_by(bench, got, f"carries {first}")
    assert f"at character {at}" in got["reason"]
    assert bench.fake.asked() == []  # refused before the platform is asked anything


async def test_plain_text_refuses_a_title_and_lets_emoji_through(bench: Bench) -> None:
    title = "Release notes\u202e"
    got = wire(await bench.desk.strike(context(bench.fake), "post", "Body.", title, accept))
    await refused_by(bench, got, "The title carries U+202E RIGHT-TO-LEFT OVERRIDE at character 14")
    emoji = CORPUS["emoji"]
    posted = wire(await bench.desk.strike(context(bench.fake), "comment", emoji, "", accept))
    assert posted["status"] == "posted" and bodies(bench.fake) == [emoji + FOOTER], posted


async def test_limits_refuse_on_the_daily_cap(tmp_path: Path, fake: FakePlatform) -> None:
    async for b in bench_for(tmp_path, fake, daily={"comment": 0, "post": 1}):
        got = wire(await b.desk.strike(context(fake), "comment", "Hi.", "", accept))
        await refused_by(b, got, "Daily cap reached")
        assert fake.asked() == []
        # the limits check refuses on its own too, given the final text
        a = Attempt(
            context(fake), StrikeAction.COMMENT, "Hi.", "", accept, ["mode=live"], mode="live"
        )
        await strike_checks.disclosure(b.desk.deps, a)
        step = await strike_checks.limits(b.desk.deps, a)
        assert isinstance(step, Refuse) and "Daily cap" in step.reason
        first = wire(await b.desk.strike(context(fake), "post", "First.", "One", accept))
        assert first["status"] == "posted", first
        capped = wire(await b.desk.strike(context(fake), "post", "Second.", "Two", accept))
        assert capped["status"] == "refused", capped
        assert "Daily cap reached: 1 of 1 posts" in capped["reason"] and len(fake.writes) == 1


async def test_limits_refuse_on_the_author_cooldown(bench: Bench) -> None:
    first = wire(await bench.desk.strike(context(bench.fake, "p1"), "comment", "Hi.", "", accept))
    got = wire(await bench.desk.strike(context(bench.fake, "p2"), "comment", "Hello.", "", accept))
    assert first["status"] == "posted", first
    assert got["status"] == "refused" and "cool-down" in got["reason"], got
    assert bench.fake.asked() == ["validate", "write_comment"]


async def test_fits_refuses_an_overlong_text_naming_the_footer(tmp_path: Path) -> None:
    short = Limit(max=20, unit="chars")
    fake = FakePlatform(replace(OPEN_FORUM, limits={"body": short, "comment": short}))
    async for b in bench_for(tmp_path, fake):
        got = wire(await b.desk.strike(context(fake), "comment", "x" * 15, "", accept))
        await refused_by(b, got, "Too long")
        assert "including the disclosure footer" in got["reason"]
        assert fake.asked() == ["validate"]


async def test_platform_allows_refuses_never_and_auto_problems(bench: Bench) -> None:
    locked = context(bench.fake, "p1")
    bench.fake.judge(locked.opportunity.post.id, "never", "locked thread")
    got = wire(await bench.desk.strike(locked, "comment", "Hi.", "", accept))
    await refused_by(bench, got, "locked thread")
    ruled = context(bench.fake, "p2", author="bob")
    bench.fake.judge(ruled.opportunity.post.id, "auto", "no links")
    got = wire(await bench.desk.strike(ruled, "comment", "Hi.", "", accept))
    assert got["status"] == "refused" and got["reason"] == "no links", got
    assert bench.fake.asked() == ["validate", "validate"]


async def test_human_only_hands_off_and_confirm_handoff_records_it_and_who(bench: Bench) -> None:
    # A principal is an identity provider's text: it is stored as given, in its own
    # column, and no decision in the policy list can pose as one.
    who = "by=mallory\nmode=live"
    ctx = context(bench.fake)
    bench.fake.judge(ctx.opportunity.post.id, "human", "a person must post comments")
    got = wire(await bench.desk.strike(ctx, "comment", "Hi.", "", accept, by=who))
    assert got["status"] == "handoff" and got["reason"] == "a person must post comments", got
    assert got["text"] == "Hi." + FOOTER and bench.fake.asked() == ["validate"]
    url = "https://x.test/mine"
    said = wire(await bench.desk.strike(ctx, "confirm_handoff", url, "", accept, by=who))
    assert said["status"] == "handoff" and "unverified" in said["reason"], said  # no proof
    [row] = bench.rows()
    mine = str(bench.fake.record("write_comment", row.target, body=row.content).url)  # by hand
    done = wire(await bench.desk.strike(ctx, "confirm_handoff", mine, "", accept, by=who))
    assert done["status"] == "posted" and done["url"] == mine, done
    [row] = bench.rows()
    assert row.status is StrikeStatus.POSTED and row.approver == "human"
    assert (row.principal, row.confirmed_by) == (who, who)
    assert not [p for p in row.policy if str(p).startswith("by=")], row.policy
    assert row.policy[0] == "mode=live", row.policy
    with pytest.raises(PlatformError, match=r"^invalid_input: There is no pending hand-off"):
        await bench.desk.strike(context(bench.fake), "confirm_handoff", "", "", accept)
    other_ctx = context(bench.fake, "p2", author="bob")
    bench.fake.judge(other_ctx.opportunity.post.id, "human", "a person must post comments")
    other = await bench.desk.strike(other_ctx, "comment", "Hey.", "", accept)
    assert other.status == "handoff", other  # by no one (stdio, or HTTP without auth)
    assert [r.principal for r in bench.rows()] == ["", who]


async def test_claim_answers_duplicate_when_the_target_was_taken_meanwhile(
    bench: Bench,
) -> None:
    # Another process claims the target between the first look and the claim: the claim
    # (one transaction with its own checks) is what stops the second write.
    a = Attempt(
        context(bench.fake), StrikeAction.COMMENT, "Hi.", "", accept, ["mode=live"], mode="live"
    )
    for check in strike_checks.OPEN:
        assert await check(bench.desk.deps, a) is None
    assert await strike_checks.earlier_claim(bench.desk.deps, a) is None
    other = a.columns(StrikeStatus.PENDING, intent_key="someone-else")
    await bench.desk.records.run(StrikeStore.insert, **other)
    step = await strike_checks.claim(bench.desk.deps, a)
    assert isinstance(step, Answer) and step.result.status == "duplicate", step
    assert a.row is None


async def test_confirm_refuses_when_another_member_opened_an_approval_meanwhile(
    tmp_path: Path, fake: FakePlatform
) -> None:
    # Alice's approval opens on another replica between Bob's look (`awaiting`) and his
    # own approval: Bob is refused as `awaiting` would, told nothing of hers.
    async for bench in bench_for(tmp_path, fake, writes="confirm"):
        deps, ctx = bench.desk.deps, context(bench.fake)
        bob, alice = (
            Attempt(ctx, StrikeAction.COMMENT, text, "", accept, [], mode="confirm", principal=who)
            for who, text in (("bob", "Hi."), ("alice", "Hello."))
        )
        for a in (bob, alice):
            for check in strike_checks.OPEN:
                assert await check(deps, a) is None
        assert await strike_checks.awaiting(deps, bob) is None
        theirs, _ = await bench.desk.claims.open_approval(alice)
        step = await strike_checks.confirm(deps, bob)
        assert isinstance(step, Refuse) and "Another team member's write" in step.reason, step
        assert str(theirs.id) not in step.reason
        assert fake.writes == []


async def test_write_records_a_refused_write_as_failed(bench: Bench) -> None:
    bench.fake.fail("write_comment", ErrorKind.INVALID_INPUT)
    with pytest.raises(PlatformError, match="nothing was written"):
        await bench.desk.strike(context(bench.fake), "comment", "Hi.", "", accept)
    [row] = bench.rows()
    assert row.status is StrikeStatus.FAILED
    assert bench.fake.asked() == ["validate", "write_comment"]


async def test_the_locks_are_dropped_after_many_targets(bench: Bench) -> None:
    for i in range(12):
        ctx = context(bench.fake, f"p{i}", author=f"author{i}")
        got = wire(await bench.desk.strike(ctx, "upvote", "", "", accept))
        assert got["status"] == "posted", got
    assert len(bench.desk._locks) == 0
    assert len(bench.fake.writes) == 12


async def test_a_keyed_lock_lives_while_held_or_awaited() -> None:
    locks: KeyedLocks[str] = KeyedLocks()
    inside = anyio.Event()
    release = anyio.Event()
    order: list[str] = []

    async def first() -> None:
        async with locks.hold("k"):
            order.append("first")
            inside.set()
            await release.wait()

    async def second() -> None:
        async with locks.hold("k"):
            order.append("second")

    async def cancelled_waiter(scope: anyio.CancelScope) -> None:
        with scope:
            async with locks.hold("k"):
                order.append("never")

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            tg.start_soon(first)
            await inside.wait()
            scope = anyio.CancelScope()
            tg.start_soon(cancelled_waiter, scope)
            tg.start_soon(second)
            await anyio.wait_all_tasks_blocked()
            assert len(locks) == 1  # one key: one holder, two waiters
            scope.cancel()
            await anyio.wait_all_tasks_blocked()
            assert len(locks) == 1
            release.set()
    assert order == ["first", "second"]
    assert len(locks) == 0
