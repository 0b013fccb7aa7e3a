"""A write that waits for a person (issue 22): a pending approval in the record, decided
from any channel through `StrikeDesk.decide`, executed at most once with exactly the
approved text. The desk runs over the fake platform; the terminal, the page and the app
card have their own tests."""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator
from contextlib import closing
from pathlib import Path
from typing import Any

import anyio
import pytest

from gwanjong_gateway.cli.doctor.doctor_command import run_doctor
from gwanjong_gateway.config import parse
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import Approval, ApprovalStatus, Channel
from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_gateway.strike.desk import StrikeDesk
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.gateway.helpers import config_text
from tests.gateway.record.test_journal import damage_an_index, named
from tests.gateway.rows import history
from tests.gateway.strike.test_strike_chain import (
    FOOTER,
    NAME,
    Says,
    accept,
    bodies,
    context,
    wire,
)
from tests.mcp import until

pytestmark = pytest.mark.anyio
nobody = Says("pending", "This client shows no approval dialog.")


class Desks:
    """Desks over one record file (each its own connection, as two processes have)."""

    def __init__(self, tmp: Path, fake: FakePlatform, clock: FakeClock):
        self.tmp, self.fake, self.clock = tmp, fake, clock
        self._open: list[tuple[Upstreams, Records]] = []

    def desk(
        self, footer: str = FOOTER, tables: dict[str, Any] | None = None, **more: Any
    ) -> StrikeDesk:
        platform = {"min_interval_s": 0, "disclosure": footer, **more}
        config = parse(config_text(self.tmp, [NAME], "confirm", platform=platform, tables=tables))
        upstreams = Upstreams(config, environ={}, transports={NAME: self.fake.server()})
        records = Records(self.tmp / "gwanjong.db")
        self._open.append((upstreams, records))
        return StrikeDesk(config, upstreams, records, clock=self.clock.time)

    def approvals(self, pending: bool = False) -> list[Approval]:
        with closing(StrikeStore(self.tmp / "gwanjong.db")) as store:
            return store.approvals(self.clock.time(), pending=pending)

    def rows(self) -> list[Any]:
        return history(self.tmp)

    async def close(self) -> None:
        with anyio.CancelScope(shield=True):
            for upstreams, records in self._open:
                await upstreams.close_all()
                records.close()
        self._open.clear()


async def desks_for(tmp: Path, fake: FakePlatform, clock: FakeClock) -> AsyncIterator[Desks]:
    d = Desks(tmp, fake, clock)
    try:
        yield d
    finally:
        await d.close()


async def waiting(desk: StrikeDesk, fake: FakePlatform, key: str, text: str) -> int:
    got = wire(await desk.strike(context(fake, key, author=key), "comment", text, "", nobody))
    assert got["status"] == "pending_approval", got
    return int(got["approval"]["id"])


async def test_replay_decline_and_racing_approvers_send_at_most_once(
    desks: Desks, fake: FakePlatform
) -> None:
    one, other = desks.desk(), desks.desk()  # two processes on one record file
    approval_id = await waiting(one, fake, "p1", "Once only.")
    results: list[dict[str, Any] | PlatformError] = []

    async def approve(desk: StrikeDesk, who: str) -> None:
        try:
            results.append(
                wire(await desk.decide(approval_id, "approve", Channel.TERMINAL, by=who))
            )
        except PlatformError as exc:
            results.append(exc)

    async with anyio.create_task_group() as tg:
        tg.start_soon(approve, one, "alice")
        tg.start_soon(approve, other, "bob")
    assert len(fake.writes) == 1
    assert sum(isinstance(r, dict) and r["status"] == "posted" for r in results) == 1
    with pytest.raises(PlatformError, match="already approved") as replay:
        await one.decide(approval_id, "approve", Channel.TERMINAL)
    assert replay.value.kind is ErrorKind.INVALID_INPUT
    declined = await waiting(one, fake, "p2", "Not this one.")
    got = wire(await one.decide(declined, "decline", Channel.TERMINAL, by="ops", reason="tone"))
    assert got["status"] == "declined" and "tone" in got["reason"]
    with pytest.raises(PlatformError, match="already declined"):
        await other.decide(declined, "approve", Channel.TERMINAL)
    assert len(fake.writes) == 1
    statuses = [r.status for r in desks.rows()]
    # the slower approver's attempt may be on record as refused ("already approved")
    assert statuses.count(StrikeStatus.POSTED) == 1 and statuses.count(StrikeStatus.DECLINED) == 1
    assert set(statuses) <= {StrikeStatus.POSTED, StrikeStatus.DECLINED, StrikeStatus.REFUSED}


async def test_an_approval_decided_after_it_was_found_open_is_a_duplicate_not_an_error(
    desks: Desks, fake: FakePlatform
) -> None:
    # The page finds the approval open, then another tab's click writes it before this one
    # runs: the claim answers (nothing more sent), never a PlatformError, which the page
    # shows as "the write may have failed" (502). It failed so under load when the desk
    # looked the approval up again.
    page, other = desks.desk(), desks.desk()
    approval_id = await waiting(page, fake, "p1", "Once only.")
    found = await page.approving.open_for(approval_id, None, None)
    assert wire(await other.decide(approval_id, "approve", Channel.PAGE))["status"] == "posted"
    got = wire(await page.decide_open(found, "approve", Channel.PAGE))
    assert got["status"] == "duplicate" and len(fake.writes) == 1, got


async def test_an_expired_approval_sends_nothing_and_frees_the_target(
    desks: Desks, fake: FakePlatform, clock: FakeClock
) -> None:
    desk = desks.desk()
    old = await waiting(desk, fake, "p1", "Too late.")
    clock.advance(86400 + 1)  # [review] expire_after_s, default 24 h
    with pytest.raises(PlatformError, match="expired"):
        await desk.decide(old, "approve", Channel.TERMINAL)
    fresh = await waiting(desk, fake, "p1", "Too late.")
    assert fresh != old and fake.writes == []
    assert [a.status_at(clock.time()) for a in desks.approvals()] == [
        ApprovalStatus.PENDING,
        ApprovalStatus.EXPIRED,
    ]


async def test_an_edited_text_is_validated_and_sent_as_edited(
    desks: Desks, fake: FakePlatform
) -> None:
    desk = desks.desk()
    approval_id = await waiting(desk, fake, "p1", "Draft.")
    with pytest.raises(PlatformError, match="disclosure footer"):
        await desk.decide(approval_id, "approve", Channel.TERMINAL, text="Footer dropped.")
    too_long = "x" * 600 + FOOTER  # the platform's limit is 500
    got = wire(await desk.decide(approval_id, "approve", Channel.TERMINAL, text=too_long))
    assert got["status"] == "refused" and "Too long" in got["reason"]
    assert got["reason"].endswith(f"Nothing was sent; approval {approval_id} still waits.")
    assert desks.approvals(pending=True)  # a refused edit leaves the approval to edit again
    smuggled = "Better words.\U000e0049\U000e0067" + FOOTER  # the chain runs again on an edit
    got = wire(await desk.decide(approval_id, "approve", Channel.TERMINAL, text=smuggled))
    assert got["status"] == "refused" and "U+E0049 TAG" in got["reason"], got
    assert "at character 14" in got["reason"] and fake.writes == []
    edited = "Better words." + FOOTER
    got = wire(await desk.decide(approval_id, "approve", Channel.TERMINAL, by="me", text=edited))
    assert got["status"] == "posted", got
    assert bodies(fake) == [edited]
    (approval,) = desks.approvals()
    assert approval.edited and approval.text == edited and approval.status == "approved"
    posted = next(r for r in desks.rows() if r.status is StrikeStatus.POSTED)
    assert any("text edited" in str(line) for line in posted.policy)


async def test_a_changed_footer_makes_the_approved_text_stale(
    desks: Desks, fake: FakePlatform
) -> None:
    approval_id = await waiting(desks.desk(), fake, "p1", "Hi.")
    changed = desks.desk(footer="\n\n-- another footer")
    got = wire(await changed.decide(approval_id, "approve", Channel.TERMINAL))
    assert got["status"] == "refused" and "no longer what was approved" in got["reason"]
    assert fake.writes == [] and desks.approvals()[0].status == ApprovalStatus.REFUSED


async def test_only_its_owner_or_the_token_decides(desks: Desks, fake: FakePlatform) -> None:
    desk = desks.desk()
    got = wire(await desk.strike(context(fake, "p1"), "comment", "Mine.", "", nobody, by="alice"))
    approval_id = int(got["approval"]["id"])
    for who, token in (("bob", None), (None, "not-the-token"), ("bob", "not-the-token")):
        with pytest.raises(PlatformError) as no:
            await desk.decide(approval_id, "approve", Channel.APP, who=who, token=token)
        assert no.value.kind is ErrorKind.NOT_FOUND  # the same answer as a missing id
    with pytest.raises(PlatformError) as missing:
        await desk.decide(approval_id + 100, "approve", Channel.APP, who="bob")
    assert missing.value.kind is ErrorKind.NOT_FOUND
    assert fake.writes == []
    got = wire(await desk.decide(approval_id, "approve", Channel.CONSOLE, by="alice", who="alice"))
    assert got["status"] == "posted" and len(fake.writes) == 1


async def test_a_decline_landing_mid_approval_wins(desks: Desks, fake: FakePlatform) -> None:
    # The approver passed every look-up; the person declines elsewhere before the claim:
    # the claim itself (one transaction) consumes the approval, so nothing is sent.
    one, other = desks.desk(), desks.desk()
    approval_id = await waiting(one, fake, "p1", "Raced.")
    held = fake.gate("validate")  # the last platform call before the claim
    got: list[dict[str, Any]] = []

    async def approve() -> None:
        got.append(wire(await one.decide(approval_id, "approve", Channel.CONSOLE, by="alice")))

    async with anyio.create_task_group() as tg:
        tg.start_soon(approve)
        await held.reached.wait()
        declined = wire(await other.decide(approval_id, "decline", Channel.TERMINAL, by="bob"))
        assert declined["status"] == "declined"
        held.go.set()
    assert got[0]["status"] == "refused" and "already declined by bob" in got[0]["reason"]
    assert fake.writes == []
    (approval,) = desks.approvals()
    assert approval.status == "declined" and approval.decided_by == "bob"


async def test_an_edited_approval_refused_at_the_claim_says_how_it_really_stands(
    desks: Desks, fake: FakePlatform, clock: FakeClock
) -> None:
    """A refused edit keeps its approval waiting for another try, and the answer says so;
    but one that expired, or was decided elsewhere, while the approval ran waits no more:
    the answer says what is true and what to do next, never "still waits"."""
    one, other = desks.desk(), desks.desk()
    edited = "Better words." + FOOTER
    declined = await waiting(one, fake, "p1", "Declined meanwhile.")
    expiring = await waiting(one, fake, "p2", "Too slow.")
    got: list[dict[str, Any]] = []

    async def approve(approval_id: int) -> None:
        got.append(wire(await one.decide(approval_id, "approve", Channel.CONSOLE, text=edited)))

    for approval_id in (declined, expiring):
        held = fake.gate("validate")  # the last platform call before the claim
        async with anyio.create_task_group() as tg:
            tg.start_soon(approve, approval_id)
            await held.reached.wait()
            if approval_id == expiring:
                clock.advance(86400 + 1)  # [review] expire_after_s, default 24 h
            else:
                await other.decide(approval_id, "decline", Channel.TERMINAL, by="bob")
            held.go.set()
    raced, late = got
    assert late["status"] == raced["status"] == "refused"
    assert "still waits" not in late["reason"] and "still waits" not in raced["reason"]
    assert late["reason"].endswith(
        f"Approval {expiring} expired: the model can strike again for a new one."
    ), late
    assert f"Approval {declined} was already declined by bob" in raced["reason"]
    assert raced["reason"].endswith(f"Approval {declined} waits no more (declined)."), raced
    assert fake.writes == []


async def test_a_blocked_edit_of_an_approval_that_expired_meanwhile_says_so(
    desks: Desks, fake: FakePlatform, clock: FakeClock
) -> None:
    """The approval was open when the person approved with an edit; it expired while the
    platform was asked for its footer (the edit must keep it), and then a wait blocks the
    write: the answer says the approval expired, not that it still waits."""
    settings = {"tables": {"review": {"expire_after_s": 60}}, "min_interval_s": 600}
    one = desks.desk(**settings)
    approval_id = await waiting(one, fake, "p1", "Paced.")
    first = wire(await one.strike(context(fake, "p2", author="p2"), "comment", "Hi.", "", accept))
    assert first["status"] == "posted", first  # min_interval_s holds writes for 600 s
    two = desks.desk(**settings)  # a fresh process: it has not asked the platform yet
    fake.hang("capabilities")
    asked = fake.calls.count("capabilities")
    got: list[dict[str, Any]] = []

    async def approve() -> None:
        edited = "Better words." + FOOTER
        got.append(wire(await two.decide(approval_id, "approve", Channel.CONSOLE, text=edited)))

    async with anyio.create_task_group() as tg:
        tg.start_soon(approve)
        await until(lambda: fake.calls.count("capabilities") > asked)
        clock.advance(61)
        fake.release()
    (answer,) = got
    assert answer["status"] == "refused" and answer["reason"].startswith("Blocked: "), answer
    assert answer["reason"].endswith(
        f"Approval {approval_id} expired: the model can strike again for a new one."
    ), answer
    assert bodies(fake) == ["Hi." + FOOTER]


async def test_a_waiting_approval_survives_doctor_repair(
    desks: Desks, fake: FakePlatform, tmp_path: Path
) -> None:
    desk = desks.desk()
    approval_id = await waiting(desk, fake, "p1", "Still waiting after a repair.")
    declined = await waiting(desk, fake, "p2", "Declined before it.")
    await desk.decide(declined, "decline", Channel.TERMINAL, by="ops")
    await desks.close()
    damage_an_index(tmp_path / "gwanjong.db")
    config = parse(config_text(tmp_path, [NAME], "confirm", platform={"min_interval_s": 0}))
    out, err = io.StringIO(), io.StringIO()
    assert run_doctor(config, None, fix=True, out=out, err=err) == 0, err.getvalue()
    [export] = named(tmp_path, "gwanjong-export-")
    exported = json.loads(export.read_text())["approvals"]
    assert [a["id"] for a in exported] == [approval_id, declined]
    assert [(a.id, a.status) for a in desks.approvals()] == [
        (declined, ApprovalStatus.DECLINED),
        (approval_id, ApprovalStatus.PENDING),
    ]
    got = wire(await desks.desk().decide(approval_id, "approve", Channel.TERMINAL))
    assert got["status"] == "posted" and bodies(fake) == ["Still waiting after a repair." + FOOTER]


async def test_asking_again_while_a_person_decides_asks_the_platform_nothing(
    desks: Desks, fake: FakePlatform
) -> None:
    # A model that polls strike while the approval waits: each answer is "still waiting",
    # and none costs a platform read (validate reads the target; on X a read is billed).
    desk = desks.desk()
    approval_id = await waiting(desk, fake, "p1", "Worth the wait.")
    assert fake.asked("validate") == ["validate"]
    for _ in range(3):
        again = wire(
            await desk.strike(context(fake, "p1"), "comment", "Worth the wait.", "", nobody)
        )
        assert again["status"] == "pending_approval", again
        assert again["approval"]["id"] == approval_id
    assert fake.asked("validate") == ["validate"]
    # approved, the write is validated again before it leaves, and sent once
    assert wire(await desk.decide(approval_id, "approve", Channel.TERMINAL))["status"] == "posted"
    assert fake.asked("validate") == ["validate", "validate"] and len(fake.writes) == 1
