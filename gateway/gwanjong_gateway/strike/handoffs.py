"""Hand-offs belong to the person: only a person (`done`, `dismiss`) or proof closes one; one
left past `[review] handoff_expire_after_s` expires (`sweep`). The model's
`confirm_handoff` (`confirm`) reads the platform (`proof`): found, it is posted; not found,
the claim is noted as unverified and the hand-off stays queued. Which one is meant: named
by record or action, else the only one of the opportunity; several are never guessed
(`choices`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import Channel
from gwanjong_gateway.rules.ledger import Strike, StrikeAction, StrikeStatus
from gwanjong_gateway.rules.refs import handoff_ref
from gwanjong_gateway.scout.state import DraftContext
from gwanjong_gateway.strike.proof import Proof, prove, web_link
from gwanjong_gateway.strike.results import (
    Choice,
    Duplicate,
    Handoff,
    Posted,
    Refused,
    StrikeResult,
)
from gwanjong_gateway.strike.settle import Settler
from gwanjong_gateway.strike.wording import earlier_view
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.untrusted import one_line

#: how a confirm_handoff names its hand-off: a record id, an action, or nothing
Which = int | StrikeAction | None

#: where a person closed a hand-off, in the words of its policy line
_FROM = {
    Channel.TERMINAL: "the terminal",
    Channel.PAGE: "the approval page",
    Channel.CONSOLE: "the console",
    Channel.APP: "an app card",
    Channel.ELICITATION: "the client's dialog",
}


def _stamp(now: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(now)) + "Z"


def pick(pending: list[Strike], which: Which) -> Strike | list[Strike]:
    """The hand-off meant, or every one that fits when that is not exactly one."""
    if isinstance(which, StrikeAction):
        fitting = [r for r in pending if r.action == which]
    elif which is None:
        fitting = pending
    else:
        fitting = [r for r in pending if r.id == which]
    return fitting[0] if len(fitting) == 1 else fitting


def choice(row: Strike) -> Choice:
    """One pending hand-off, as the model is shown it to choose (what it lacks is left out)."""
    return Choice(
        record=row.id,
        action=str(row.action),
        open=row.write.target_url or None,
        title=one_line(row.title, 80) or None,
        text=one_line(row.content, 80) or None,
    )


def _call(opportunity: str, handoff: str) -> str:
    return (
        f"strike(opportunity_id={opportunity!r}, action='confirm_handoff', handoff={handoff}, "
        "content=<the URL of their post>)"
    )


def _listing(rows: list[Strike]) -> str:
    return ", ".join(f"hand-off {handoff_ref(r.id)} (handoff={r.id}, {r.action})" for r in rows)


def ambiguous(opportunity: str, which: Which, rows: list[Strike], ref: str = "") -> Refused:
    """More than one hand-off fits: nothing is recorded, the choices are the answer.
    ``ref``: the id the model calls the opportunity by (its handle)."""
    named = f" {which}" if isinstance(which, StrikeAction) else ""
    return Refused(
        reason=(
            f"{len(rows)}{named} hand-offs of {ref or opportunity} are pending ({_listing(rows)}); "
            f"nothing was recorded. Say which one the person posted: {_call(ref or opportunity, '<record>')}."
        ),
        choices=[choice(r) for r in rows],
    )


def _already(row: Strike, named: str, then: str) -> str:
    at = f" at {row.result_url}" if row.result_url else ""
    return f"Hand-off {handoff_ref(row.id)}{named} is already recorded as posted{at}; {then}."


def already(row: Strike) -> Duplicate:
    """The named record was confirmed (or posted) before: never recorded twice."""
    reason = _already(row, f" ({row.action})", "nothing to confirm")
    return Duplicate(reason=reason, earlier=earlier_view(row))


def none_fits(
    opportunity: str, which: Which, pending: list[Strike], named: Strike | None, ref: str = ""
) -> PlatformError:
    """Why no pending hand-off fits, and what to call instead. ``named``: the record
    ``which`` names, if it exists; ``ref``: the opportunity's handle, for the hint."""
    shown = ref or opportunity
    if isinstance(which, StrikeAction):
        why = f"There is no pending {which} hand-off for {shown}."
    elif which is None:
        why = f"There is no pending hand-off for {shown}."
    elif named is None:
        why = f"There is no hand-off {handoff_ref(which)}."
    elif named.opportunity != opportunity:
        where = named.target_url or "another post"
        why = f"Record {which} is not a hand-off of {shown} (it is a {named.action} on {where})."
    else:
        why = f"Hand-off {handoff_ref(which)} is {named.status}, not waiting for a person."
    if pending:
        first = pending[0].id
        then = f" Pending here: {_listing(pending)}; e.g. {_call(ref or opportunity, str(first))}."
    else:
        then = " strike with action='comment' (or 'post') first."
    return PlatformError(ErrorKind.INVALID_INPUT, why + then)


class HandOffs:
    """The hand-offs in the record: the model says one was posted (`confirm`: proof, or a
    noted claim), a person closes one (`done`) or dismisses it (`dismiss`), time expires it
    (`sweep`)."""

    def __init__(self, records: Records, settler: Settler, clock: Callable[[], float]) -> None:
        self.records = records
        self.settler = settler  # its upstreams read the platform for proof; its config
        self.clock = clock

    def _expiry(self) -> tuple[float, float]:
        """(older than this a hand-off expires, now): `[review] handoff_expire_after_s`."""
        now = self.clock()
        return now - self.settler.config.review.handoff_expire_after_s, now

    async def sweep(self) -> int:
        """Expire every hand-off past its time; how many. Read first: most sweeps find none
        and then write nothing."""
        older_than, now = self._expiry()
        if not await self.records.run(StrikeStore.any_to_expire, older_than):
            return 0
        return await self.records.run(StrikeStore.expire_handoffs, older_than, now)

    async def sweep_then_paused(self, platform: str) -> str:
        """`sweep`, then why writes to ``platform`` are paused ("" when they are not): a
        strike's first two questions to the record, one read when nothing is to expire."""
        older_than, now = self._expiry()
        paused = await self.records.run(StrikeStore.paused_unless_expiring, platform, older_than)
        if paused is not None:
            return paused
        return await self.records.run(_expire_then_paused, older_than, now, platform)

    async def confirm(
        self, ctx: DraftContext, url: str, which: Which = None, by: str | None = None
    ) -> StrikeResult:
        """The model says the hand-off ``which`` names (its record or its action; None: the
        only one pending here) was posted: posted when the platform shows it (`proof`),
        else the claim is noted and it stays the person's. ``by``: the signed-in caller."""
        opportunity = ctx.opportunity.id
        await self.sweep()
        pending = await self.records.run(
            StrikeStore.pending_handoffs, opportunity, ctx.opportunity.post.platform
        )
        if by is not None:  # signed in: only the caller's own hand-offs, as if no other existed
            pending = [r for r in pending if r.principal == by]
        picked = pick(pending, which)
        if isinstance(picked, list) and picked:
            return ambiguous(opportunity, which, picked, ctx.opportunity.ref)
        if isinstance(picked, list):
            named = await self._visible(which, by) if isinstance(which, int) else None
            if (
                named is not None
                and named.opportunity == opportunity
                and named.status == StrikeStatus.POSTED
            ):
                return already(named)
            raise none_fits(opportunity, which, pending, named, ctx.opportunity.ref)
        row = picked
        link = web_link(url)
        if url.strip() and not link:
            proof = Proof(why="what was given is not the http(s) link of a post")
        else:
            proof = await prove(self.settler.upstreams, row, link)
        if not proof.found:
            return await self._claimed(row, link, proof.why, ctx.opportunity.ref)
        line = f"hand-off proven: found on {row.platform} by the gateway at"
        said = f"recorded as posted: the gateway found it on {row.platform}."
        confirmed = await self._posted(row, proof.url, by or "", line, said, proof.id)
        return confirmed or await self._closed_meanwhile(row)

    async def _closed_meanwhile(self, row: Strike) -> Duplicate | Refused:
        """Hand-off ``row`` was closed, dismissed or expired by someone else during this call:
        say which, never "posted" for one a person dismissed."""
        earlier = await self.records.run(StrikeStore.get, row.id) or row
        if earlier.status is StrikeStatus.POSTED:
            return already(earlier)
        return Refused(
            reason=f"Hand-off {handoff_ref(row.id)} is {earlier.status}; nothing recorded.",
            record=row.id,
        )

    async def _claimed(
        self, row: Strike, link: str, why: str, ref: str
    ) -> Handoff | Duplicate | Refused:
        """No proof: the claim is noted (unverified) and the hand-off stays the person's."""
        now = self.clock()
        line = f"claimed posted by the model at {_stamp(now)}, unverified: {why}"
        noted = await self.records.run(StrikeStore.note_claim, row.id, link, line, now)
        if noted is None:
            return await self._closed_meanwhile(row)
        h = handoff_ref(row.id)
        return Handoff(
            reason=f"Not recorded as posted: {why}. Only a person closes hand-off {h}, or "
            f"the gateway once it finds the comment on {row.platform}; it stays in their "
            "queue, this claim noted as unverified.",
            open=row.write.target_url or None,
            record=row.id,
            next=f"Ask the person to post it if they have not, then to close it themself "
            f"(`gwanjong review done {h} --url <link>`, or the console's Hand-offs page); "
            f"or call strike(opportunity_id={ref!r}, action='confirm_handoff', "
            f"handoff={row.id}) again once it is on {row.platform}.",
        )

    async def _visible(self, record_id: int, who: str | None) -> Strike | None:
        """Record ``record_id`` if ``who`` may see it (None: the operator, who sees all):
        another's record answers as a missing one (ids are no oracle)."""
        row = await self.records.run(StrikeStore.get, record_id)
        return None if row is None or (who is not None and row.principal != who) else row

    async def _waiting(self, record_id: int, who: str | None) -> Strike:
        """Hand-off ``record_id`` as it stands (expired first if past its time); raises
        when there is none the caller may see."""
        await self.sweep()
        row = await self._visible(record_id, who)
        h = handoff_ref(record_id)
        if row is None:
            raise PlatformError(
                ErrorKind.NOT_FOUND,
                f"There is no hand-off {h}; `gwanjong review list` shows those waiting.",
            )
        if row.status is StrikeStatus.POSTED:
            raise PlatformError(ErrorKind.INVALID_INPUT, _already(row, "", "nothing changed"))
        if row.status is not StrikeStatus.HANDOFF:
            raise PlatformError(
                ErrorKind.INVALID_INPUT,
                f"Hand-off {h} is {row.status}, not waiting for a person; nothing changed.",
            )
        return row

    async def done(
        self,
        record_id: int,
        url: str,
        by: str,
        who: str | None = None,
        channel: Channel = Channel.TERMINAL,
    ) -> Posted:
        """The person posted hand-off ``record_id`` at ``url``: exactly that record is closed
        (``who``: the signed-in principal, None for the operator). Raises PlatformError."""
        link = web_link(url)
        if not link:
            raise PlatformError(
                ErrorKind.INVALID_INPUT,
                f"--url must be the http(s) link of what was posted, not {one_line(url, 80)!r}.",
            )
        row = await self._waiting(record_id, who)
        line = f"posted by a person, closed from {_FROM[channel]} by {by or 'the local user'} at"
        closed = await self._posted(row, link, by, line, "recorded as posted by a person.")
        if closed is None:  # closed by someone else meanwhile
            earlier = await self.records.run(StrikeStore.get, row.id) or row
            raise PlatformError(ErrorKind.INVALID_INPUT, _already(earlier, "", "nothing changed"))
        return closed

    async def dismiss(
        self, record_id: int, by: str, who: str | None = None, channel: Channel = Channel.TERMINAL
    ) -> Strike:
        """The person will not post hand-off ``record_id``: it leaves their queue, kept in
        history as `dismissed` (it holds its target no longer). Raises as `done`."""
        row = await self._waiting(record_id, who)
        now = self.clock()
        name = by or "the local user"
        closed = await self.records.run(
            StrikeStore.close_handoff,
            row.id,
            StrikeStatus.DISMISSED,
            now,
            reason=f"dismissed by {name}",
            confirmed_by=by,
            policy=[*row.policy, f"dismissed by {name} from {_FROM[channel]} at {_stamp(now)}"],
        )
        if closed is None:
            raise PlatformError(
                ErrorKind.INVALID_INPUT,
                f"Hand-off {handoff_ref(row.id)} no longer waits; nothing changed.",
            )
        return closed

    async def _posted(
        self, row: Strike, link: str, by: str, line: str, said: str, result_id: str = ""
    ) -> Posted | None:
        """Record hand-off ``row`` as posted at ``link`` by ``by``, with the policy ``line``
        (the time is added); the answer says the hand-off was ``said``. None when someone
        closed it meanwhile."""
        now = self.clock()
        closed = await self.records.run(
            StrikeStore.confirm_handoff,
            row.id,
            approver="human",
            result_url=link,
            result_id=result_id,
            policy=[*row.policy, f"{line} {_stamp(now)}"],
            confirmed_by=by,
            now=now,
        )
        if closed is None:
            return None
        return Posted(
            url=link or None,
            record=closed.id,
            action=str(closed.action),
            approver="human",
            reason=f"Hand-off {handoff_ref(closed.id)} {said}",
        )


def _expire_then_paused(store: StrikeStore, older_than: float, now: float, platform: str) -> str:
    store.expire_handoffs(older_than, now)
    return store.paused(platform)
