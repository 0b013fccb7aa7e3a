"""strike's chain of checks, one at a time, against a fake platform that answers the
contract from memory (an in-process FastMCP server: no sandbox, no SDK).

Each test sets up the one condition a check refuses on and shows that this check, and no
later one, decided: the record row says why, and the platform saw only the calls that
come before that check.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import FastMCP
from pydantic import BaseModel

from gwanjong_gateway.config import parse
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import StrikeAction, StrikeStatus
from gwanjong_gateway.scout.state import DraftContext, DraftRule, Opportunity
from gwanjong_gateway.strike import checks as strike_checks
from gwanjong_gateway.strike.attempt import Answer, Attempt, Refuse
from gwanjong_gateway.strike.desk import StrikeDesk
from gwanjong_gateway.strike.locks import KeyedLocks
from gwanjong_shared.contract import Action, ActionRule, Capabilities, Length, Limit, Validation
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.models import Comment, Post, PostResult
from tests.gateway.helpers import config_text

pytestmark = pytest.mark.anyio
NAME = "devto"  # a bundled name, so the config needs no command; the server is the fake
FOOTER = "\n\n-- drafted with a bot"


def wire(result: BaseModel) -> dict[str, Any]:
    """A strike result as the model receives it (the tool's structured content)."""
    return result.model_dump(mode="json")


@dataclass
class FakePlatform:
    """The contract from memory; `verdict` is what `validate` answers."""

    allowed: str = "auto"
    problems: list[str] = field(default_factory=list)
    max: int = 500
    fail: ErrorKind | None = None  # the write fails with this kind
    calls: list[str] = field(default_factory=list)
    bodies: list[str] = field(default_factory=list)

    def server(self) -> FastMCP[Any]:
        mcp: FastMCP[Any] = FastMCP(NAME)
        post = Post(id="p1", platform=NAME, title="A post", url="https://x.test/p1")

        @mcp.tool
        def trending(limit: int = 10) -> dict[str, Any]:
            return {"posts": [post.model_dump()]}

        @mcp.tool
        def search(query: str, limit: int = 10) -> dict[str, Any]:
            return {"posts": [post.model_dump()]}

        @mcp.tool
        def get_post(post_id: str) -> Post:
            return post

        @mcp.tool
        def get_comments(post_id: str, limit: int = 20) -> dict[str, Any]:
            return {"comments": list[Comment]()}

        @mcp.tool
        def capabilities() -> Capabilities:
            rule = ActionRule(allowed="auto", reason="")
            return Capabilities(
                platform=NAME,
                configured=True,
                account="me",
                actions={"write_post": rule, "write_comment": rule, "upvote": rule},
                limits={"body": Limit(max=self.max, unit="chars")},
            )

        @mcp.tool
        def validate(
            action: str, body: str, title: str = "", post_id: str | None = None
        ) -> Validation:
            self.calls.append("validate")
            return Validation(
                ok=not self.problems,
                allowed=self.allowed,  # type: ignore[arg-type]
                problems=self.problems,
                length=Length(used=len(body), max=self.max, unit="chars"),
            )

        def written(action: Action, body: str) -> PostResult:
            self.calls.append(action)
            if self.fail is not None:
                raise PlatformError(self.fail, "the fake platform says no.")
            self.bodies.append(body)
            n = len(self.bodies)
            return PostResult(
                ok=True, platform=NAME, action=action, id=f"w{n}", url=f"https://x.test/w{n}"
            )

        @mcp.tool
        def write_comment(post_id: str, body: str, parent_id: str | None = None) -> PostResult:
            return written("write_comment", body)

        @mcp.tool
        def write_post(title: str, body: str, tags: list[str] | None = None) -> PostResult:
            return written("write_post", body)

        @mcp.tool
        def upvote(post_id: str) -> PostResult:
            return written("upvote", "")

        return mcp


@dataclass
class Bench:
    desk: StrikeDesk
    fake: FakePlatform
    store: Path

    def rows(self) -> list[Any]:
        store = StrikeStore(self.store)
        try:
            return store.history(limit=100)
        finally:
            store.close()


def context(post_id: str = "p1", author: str = "alice", **validation: Any) -> DraftContext:
    post = Post(
        id=post_id, platform=NAME, title="A post", url=f"https://x.test/{post_id}", author=author
    )
    return DraftContext(
        opportunity=Opportunity(id=f"{NAME}:{post_id}", post=post, score=1.0, reason="test"),
        capabilities=None,
        validation={k: DraftRule(**v) for k, v in validation.items()},
    )


async def accept(message: str) -> str:
    return "accept"


@pytest.fixture
def fake() -> FakePlatform:
    return FakePlatform()


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
        "disclosure",
        "earlier_claim",
        "limits",
        "platform_rules",
        "fits",
        "platform_allows",
        "human_only",
        "dry_run",
        "confirm",
        "claim",
        "write",
    ]
    assert (*strike_checks.OPEN, *strike_checks.HELD) == strike_checks.CHAIN
    assert strike_checks.OPEN[-1] is strike_checks.disclosure  # the lock needs the final text


async def test_a_clean_comment_passes_every_check_and_is_written(bench: Bench) -> None:
    got = wire(await bench.desk.strike(context(), "comment", "Nice post.", "", accept))
    assert got["status"] == "posted" and got["url"] == "https://x.test/w1", got
    assert bench.fake.calls == ["validate", "write_comment"]  # validated once, written once
    assert bench.fake.bodies == ["Nice post." + FOOTER]
    [row] = bench.rows()
    assert row.status is StrikeStatus.POSTED and row.action == "comment"
    assert "disclosure appended" in row.policy and row.policy[-1] == "posted"


async def refused_by(bench: Bench, got: dict[str, Any], words: str) -> None:
    assert got["status"] == "refused" and words in got["reason"], got
    assert not bench.fake.bodies
    row = bench.rows()[0]
    assert row.status is StrikeStatus.REFUSED and row.policy[-1] == f"refused: {got['reason']}"


async def test_paused_refuses_before_anything_else(bench: Bench) -> None:
    await bench.desk.records.run(StrikeStore.record_failure, NAME, "boom", 1)
    got = wire(await bench.desk.strike(context(), "comment", "Hi.", "", accept))
    await refused_by(bench, got, "are paused")
    assert bench.fake.calls == []


async def test_opted_out_refuses_a_comment_but_not_a_new_post(
    tmp_path: Path, fake: FakePlatform
) -> None:
    async for b in bench_for(tmp_path, fake, tables={"safety": {"opt_out": [f"{NAME}:alice"]}}):
        got = wire(await b.desk.strike(context(), "comment", "Hi.", "", accept))
        await refused_by(b, got, "opt-out list")
        assert fake.calls == []
        posted = wire(await b.desk.strike(context(), "post", "A new post.", "Title", accept))
        assert posted["status"] == "posted", posted


async def test_never_allowed_refuses_from_the_draft_verdict(bench: Bench) -> None:
    ctx = context(comment={"allowed": "never", "reason": "comments are closed"})
    got = wire(await bench.desk.strike(ctx, "comment", "Hi.", "", accept))
    await refused_by(bench, got, "comments are closed")
    assert bench.fake.calls == []


async def test_earlier_claim_answers_duplicate(bench: Bench) -> None:
    first = wire(await bench.desk.strike(context(), "comment", "Hi.", "", accept))
    again = wire(await bench.desk.strike(context(), "comment", "Hi.", "", accept))
    assert first["status"] == "posted" and again["status"] == "duplicate", again
    assert bench.fake.calls == ["validate", "write_comment"]  # the second never asked


async def test_limits_refuse_on_the_daily_cap(tmp_path: Path, fake: FakePlatform) -> None:
    async for b in bench_for(tmp_path, fake, daily={"comment": 0}):
        got = wire(await b.desk.strike(context(), "comment", "Hi.", "", accept))
        await refused_by(b, got, "Daily cap reached")
        assert fake.calls == []


async def test_limits_refuse_on_the_author_cooldown(bench: Bench) -> None:
    first = wire(await bench.desk.strike(context("p1"), "comment", "Hi.", "", accept))
    got = wire(await bench.desk.strike(context("p2"), "comment", "Hello.", "", accept))
    assert first["status"] == "posted", first
    assert got["status"] == "refused" and "cool-down" in got["reason"], got
    assert bench.fake.calls == ["validate", "write_comment"]


async def test_fits_refuses_an_overlong_text_naming_the_footer(bench: Bench) -> None:
    bench.fake.max = 20
    got = wire(await bench.desk.strike(context(), "comment", "x" * 15, "", accept))
    await refused_by(bench, got, "Too long")
    assert "including the disclosure footer" in got["reason"]
    assert bench.fake.calls == ["validate"]


async def test_platform_allows_refuses_never_and_auto_problems(bench: Bench) -> None:
    bench.fake.allowed, bench.fake.problems = "never", ["locked thread"]
    got = wire(await bench.desk.strike(context("p1"), "comment", "Hi.", "", accept))
    await refused_by(bench, got, "locked thread")
    bench.fake.allowed, bench.fake.problems = "auto", ["no links"]
    got = wire(await bench.desk.strike(context("p2", author="bob"), "comment", "Hi.", "", accept))
    assert got["status"] == "refused" and got["reason"] == "no links", got
    assert bench.fake.calls == ["validate", "validate"]


async def test_human_only_hands_off_and_confirm_handoff_records_it(bench: Bench) -> None:
    bench.fake.allowed, bench.fake.problems = "human", ["a person must post comments"]
    got = wire(await bench.desk.strike(context(), "comment", "Hi.", "", accept))
    assert got["status"] == "handoff" and got["reason"] == "a person must post comments", got
    assert got["text"] == "Hi." + FOOTER and bench.fake.calls == ["validate"]
    done = wire(
        await bench.desk.strike(context(), "confirm_handoff", "https://x.test/mine", "", accept)
    )
    assert done["status"] == "posted" and done["url"] == "https://x.test/mine", done
    [row] = bench.rows()
    assert row.status is StrikeStatus.POSTED and row.approver == "human"
    with pytest.raises(PlatformError, match=r"^invalid_input: There is no pending hand-off"):
        wire(await bench.desk.strike(context(), "confirm_handoff", "", "", accept))


async def test_the_signed_in_caller_is_a_column_never_a_decision(bench: Bench) -> None:
    # A principal is an identity provider's text: it is stored as given, in its own
    # column, and no decision in the policy list can pose as one.
    bench.fake.allowed, bench.fake.problems = "human", ["a person must post comments"]
    who = "by=mallory\nmode=live"
    got = await bench.desk.strike(context(), "comment", "Hi.", "", accept, by=who)
    assert got.status == "handoff", got
    done = await bench.desk.strike(
        context(), "confirm_handoff", "https://x.test/mine", "", accept, by=who
    )
    assert done.status == "posted", done
    [row] = bench.rows()
    assert (row.principal, row.confirmed_by) == (who, who)
    assert not [p for p in row.policy if str(p).startswith("by=")], row.policy
    assert row.policy[0] == "mode=live", row.policy
    other = await bench.desk.strike(context("p2", author="bob"), "comment", "Hey.", "", accept)
    assert other.status == "handoff", other  # by no one (stdio, or HTTP without auth)
    assert [r.principal for r in bench.rows()] == ["", who]


async def test_dry_run_answers_what_it_would_do(tmp_path: Path, fake: FakePlatform) -> None:
    async for b in bench_for(tmp_path, fake, writes="dry-run"):
        got = wire(await b.desk.strike(context(), "comment", "Hi.", "", accept))
        assert got["status"] == "dry_run" and got["would"]["tool"] == "write_comment", got
        assert fake.calls == ["validate"] and b.rows()[0].status is StrikeStatus.DRY_RUN


async def test_confirm_records_a_decline_and_refuses_without_elicitation(
    tmp_path: Path, fake: FakePlatform
) -> None:
    async def decline(message: str) -> str:
        assert "Publish this comment" in message
        return "decline"

    async def unsupported(message: str) -> str:
        return "unsupported"

    async for b in bench_for(tmp_path, fake, writes="confirm"):
        got = wire(await b.desk.strike(context("p1"), "comment", "Hi.", "", decline))
        assert got["status"] == "declined", got
        got = wire(
            await b.desk.strike(context("p2", author="bob"), "comment", "Hi.", "", unsupported)
        )
        await refused_by(b, got, "cannot ask you for approval")
        assert [r.status for r in b.rows()] == [StrikeStatus.REFUSED, StrikeStatus.DECLINED]
        assert fake.calls == ["validate", "validate"]


async def test_claim_answers_duplicate_when_the_target_was_taken_meanwhile(
    bench: Bench,
) -> None:
    # Another process claims the target between the first look and the claim: the claim
    # (one transaction with its own checks) is what stops the second write.
    a = Attempt(context(), StrikeAction.COMMENT, "Hi.", "", accept, ["mode=live"], mode="live")
    for check in strike_checks.OPEN:
        assert await check(bench.desk.deps, a) is None
    assert await strike_checks.earlier_claim(bench.desk.deps, a) is None
    other = a.columns(StrikeStatus.PENDING, intent_key="someone-else")
    await bench.desk.records.run(StrikeStore.insert, **other)
    step = await strike_checks.claim(bench.desk.deps, a)
    assert isinstance(step, Answer) and step.result.status == "duplicate", step
    assert a.row is None


async def test_limits_check_refuses_on_its_own(tmp_path: Path, fake: FakePlatform) -> None:
    async for b in bench_for(tmp_path, fake, daily={"comment": 0}):
        a = Attempt(context(), StrikeAction.COMMENT, "Hi.", "", accept, ["mode=live"], mode="live")
        await strike_checks.disclosure(b.desk.deps, a)
        step = await strike_checks.limits(b.desk.deps, a)
        assert isinstance(step, Refuse) and "Daily cap" in step.reason


async def test_write_records_a_refused_write_as_failed(bench: Bench) -> None:
    bench.fake.fail = ErrorKind.INVALID_INPUT
    with pytest.raises(PlatformError, match="nothing was written"):
        wire(await bench.desk.strike(context(), "comment", "Hi.", "", accept))
    [row] = bench.rows()
    assert row.status is StrikeStatus.FAILED
    assert bench.fake.calls == ["validate", "write_comment"]


async def test_the_locks_are_dropped_after_many_targets(bench: Bench) -> None:
    for i in range(12):
        ctx = context(f"p{i}", author=f"author{i}")
        got = wire(await bench.desk.strike(ctx, "upvote", "", "", accept))
        assert got["status"] == "posted", got
    assert len(bench.desk._locks) == 0
    assert len(bench.fake.bodies) == 12


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
