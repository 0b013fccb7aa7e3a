"""The desk: builds the `Attempt`, runs `checks.OPEN`, then `checks.HELD` under the lock of
the target; the first step that is not PASS becomes the result (recorded through `Claims`).
The order is docs/develop/strike-chain.md; the checks get `Deps`, never the desk.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Literal

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.record.journal import WriteJournal
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.rules import approvals
from gwanjong_gateway.rules.approvals import Approval, ApprovalUse, Channel
from gwanjong_gateway.rules.ledger import StrikeAction
from gwanjong_gateway.rules.outgoing import Edit
from gwanjong_gateway.scout.state import DraftContext
from gwanjong_gateway.strike.approving import Approving, attempt_for, pending
from gwanjong_gateway.strike.attempt import (
    Answer,
    Asker,
    AskPerson,
    Attempt,
    HandOff,
    Refuse,
    Step,
    wait_s,
)
from gwanjong_gateway.strike.checks import HELD, OPEN, Check, Deps
from gwanjong_gateway.strike.claims import Claims
from gwanjong_gateway.strike.handoffs import HandOffs, Which
from gwanjong_gateway.strike.locks import KeyedLocks
from gwanjong_gateway.strike.results import Duplicate, PendingApproval, Refused, StrikeResult
from gwanjong_gateway.strike.send import Sender
from gwanjong_gateway.strike.settle import Settler
from gwanjong_gateway.strike.wording import taken_by_another

__all__ = ["Asker", "StrikeDesk"]


class StrikeDesk:
    def __init__(
        self,
        config: GatewayConfig,
        upstreams: Upstreams,
        records: Records,
        clock: Callable[[], float] = time.time,
        mono: Callable[[], float] = time.monotonic,
    ) -> None:
        """``clock``: the wall clock the record stores; ``mono``: what the settle window
        is measured with."""
        self.config = config
        self.records = records
        self.settler = Settler(config, upstreams, records, clock, mono)
        self.claims = Claims(config, records, self.settler, clock)
        self.journal = WriteJournal.beside(records, clock)  # a trace of every send
        self.sender = Sender(
            upstreams,
            records,
            self.settler,
            clock,
            config.safety.pause_after_failures,
            self.journal,
        )
        self.deps = Deps(config, upstreams.profiles, self.claims, self.sender)
        self.handoffs = HandOffs(records, self.settler, clock)
        self.approving = Approving(config, records, upstreams.profiles, clock)
        self._locks: KeyedLocks[str] = KeyedLocks()

    async def strike(
        self,
        ctx: DraftContext,
        action: StrikeAction | str,
        content: str,
        title: str,
        asker: Asker,
        by: str | None = None,
        handoff: Which = None,
    ) -> StrikeResult:
        """``by``: the signed-in caller (HTTP with [auth]), the row's `principal`.
        ``handoff``: which hand-off a confirm_handoff records (see `HandOffs.confirm`)."""
        action = StrikeAction(action)
        if action is StrikeAction.CONFIRM_HANDOFF:
            return await self.handoffs.confirm(ctx, content, handoff, by)
        await self.journal.ready(strict=True)  # earlier unrecorded writes are in the record first
        mode = self.config.gateway.writes
        a = Attempt(
            ctx,
            action,
            content.strip(),
            title,
            asker,
            [f"mode={mode}"],
            mode=mode,
            principal=by or "",
        )
        # a hand-off past its time holds its target no more; the chain's first check
        # (`paused`) reads the answer asked in the same trip
        a.paused = await self.handoffs.sweep_then_paused(a.platform)
        answer = await self.chain(a)
        if isinstance(answer, PendingApproval):  # the last person's "no" on this target
            note = await self.approving.declined_before_id(answer.approval.id)
            if note:
                answer.reason = f"{note} {answer.reason}"
        return answer

    async def chain(self, a: Attempt) -> StrikeResult:
        """The checks of `OPEN`, then those of `HELD` under the target's lock. An approval
        the chain did not consume (refused, or the target taken meanwhile) is closed with
        the reason, unless the refusal only asks to wait. A PlatformError leaves it as it
        is: the write was sent (consumed with the claim) or the record failed (still open)."""
        answer = await self._run(OPEN, a)
        if answer is None:
            async with self._locks.hold(a.lock_key):
                answer = await self._run(HELD, a)
        if isinstance(answer, AskPerson):
            return await self._ask(a, answer)
        if answer is None:
            raise RuntimeError("the strike chain ended without an answer")
        if (
            a.approval is not None
            and isinstance(answer, Duplicate)
            and answer.holder != a.principal
        ):
            # the approval's member reads this answer (and its reason, kept on the approval),
            # whoever decides: another member's row that holds the target stays theirs
            answer = taken_by_another(answer)
        if a.approval is not None and not a.kept:
            await self.approving.unconsumed(a.approval, answer)
        return answer

    async def decide(
        self,
        approval_id: int,
        decision: Literal["approve", "decline"],
        channel: Channel,
        by: str = "",
        who: str | None = None,
        token: str | None = None,
        text: str | None = None,
        reason: str = "",
        edit: Edit | None = None,
    ) -> StrikeResult:
        """A person's decision on a pending approval, from any channel (``by``: for the audit;
        ``who``: the signed-in principal, None for the operator; ``token``: the approval's
        one-time token for ``channel``; ``text``/``edit``: the person's edit). Approving re-runs
        the whole chain."""
        approval = await self.approving.open_for(approval_id, who, token, channel)
        return await self.decide_open(approval, decision, channel, by, text, reason, edit)

    async def decide_open(
        self,
        approval: Approval,
        decision: Literal["approve", "decline"],
        channel: Channel,
        by: str = "",
        text: str | None = None,
        reason: str = "",
        edit: Edit | None = None,
    ) -> StrikeResult:
        """`decide` on an approval the caller has just found open (`Approving.open_for`). It is
        not read again: one decided or expired meanwhile is the claim's to answer (a
        duplicate or a refusal, nothing sent), never an error that could read as a failed write."""
        if text is not None:
            edit = replace(edit or Edit(), text=text)
        by = approvals.person(by)
        if decision == "decline":
            a = attempt_for(
                approval,
                ApprovalUse(approval.id, approval.digest, by, channel),
                self.config.gateway.writes,
            )
            return await self.claims.decline(a, approval, by, channel, reason)
        use = await self.edit_for(approval, by, channel, edit)
        held = await self.approving.hold(approval)
        if held is not None:  # it would only be refused: no run, no row, still pending
            wait = None if held.until is None else wait_s(held.until - self.claims.clock())
            left = await self.approving.left(approval.id)
            return Refused(reason=f"{held.said()}. {left}", retry_after=wait)
        a = attempt_for(approval, use, self.config.gateway.writes, edit)
        await self.journal.ready(strict=True)
        return await self.chain(a)

    async def _ask(self, a: Attempt, ask: AskPerson) -> StrikeResult:
        """The person's answer in the client, out of the target's lock: approving runs the
        chain again as the approval (the same as approving it anywhere else)."""
        approval = ask.approval
        said = await a.asker.ask(approval, ask.token)
        who = approvals.person(a.principal)
        if said.decision == "approve":
            use = ApprovalUse(approval.id, approval.digest, who, said.channel)
            return await self.chain(attempt_for(approval, use, a.mode))
        if said.decision == "decline":
            return await self.claims.decline(a, approval, who, said.channel)
        # for an app card's `_meta` only, never what the model reads
        return pending(approval, said).model_copy(update={"token": ask.token})

    async def edit_for(
        self, approval: Approval, by: str, channel: Channel, edit: Edit | None
    ) -> ApprovalUse:
        """The approval as it will run, with the person's ``edit`` checked. The edit must
        keep the platform's disclosure footer, and its digest names the account, so a
        platform not heard from yet (in a fresh process: `gwanjong review`) is asked
        first. Raises PlatformError."""
        if edit is not None and not edit.empty:
            await self.sender.learn_rules(approval.platform)  # asks one not heard from yet
        return self.approving.use(approval, by, channel, edit)

    async def _run(self, checks: tuple[Check, ...], a: Attempt) -> StrikeResult | AskPerson | None:
        """The checks in order, up to the first that does not pass: its result (or the
        person to ask, which the desk does once the lock is let go)."""
        for check in checks:
            step = await check(self.deps, a)
            if isinstance(step, AskPerson):
                return step
            if step is not None:
                return await self._conclude(a, step)
        return None

    async def _conclude(self, a: Attempt, step: Step) -> StrikeResult:
        if isinstance(step, HandOff):  # claimed for a person, or why it cannot be
            step = await self.claims.hand_off(a, step.reason)
        if isinstance(step, Refuse):
            use = a.approval
            if use is not None and (step.retry_after or step.waits or use.edited):
                # a wait, or the person's edit refused: the approval stays pending for
                # another try, and a refused click leaves no row in the history
                a.kept = True
                left = await self.approving.left(use.id)  # expired or decided meanwhile?
                return Refused(reason=f"{step.reason} {left}", retry_after=step.retry_after)
            return await self.claims.refuse(a, step.reason, step.retry_after)
        if isinstance(step, Answer):
            return step.result
        raise TypeError(f"a check answered {step!r}")
