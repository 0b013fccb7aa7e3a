"""strike: the one place where gwanjong writes, and every check that comes first.

Order (`strike_checks.CHAIN`): platform not paused → author not opted out → not an action
the platform never allows → disclosure footer appended → under the target's lock: not done
before (an unsure earlier attempt is read back first) → author cool-down, daily cap and
minimum interval → the platform's own `validate` of the final text (length, never, human)
→ write mode (dry-run / confirm / live) → the claim (every limit again, atomically, in one
transaction with the `pending` row) → the write → result recorded. Statuses: posted,
dry_run, handoff, declined, refused, duplicate.

This module runs the chain and records what it decided; the checks live in
`strike_checks`. Every platform call of strike goes through `_platform_validate` and
`_platform_write`, on the typed PlatformClient.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.platforms.client import PlatformClient
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.record.journal import WriteJournal
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules import policy
from gwanjong_gateway.rules.ledger import (
    UNSETTLED,
    ClaimRequest,
    Strike,
    StrikeAction,
    StrikeStatus,
    Verdict,
    intent_key,
)
from gwanjong_gateway.scout.state import DraftContext
from gwanjong_gateway.strike import handoffs
from gwanjong_gateway.strike.checks import (
    HELD,
    OPEN,
    Answer,
    Approver,
    Attempt,
    Check,
    HandOff,
    Refuse,
    Step,
    wait_s,
)
from gwanjong_gateway.strike.handoffs import Which
from gwanjong_gateway.strike.locks import KeyedLocks
from gwanjong_gateway.strike.results import Duplicate, Handoff, Posted, Refused, StrikeResult
from gwanjong_gateway.strike.settle import Settler
from gwanjong_gateway.strike.text import duplicate, would
from gwanjong_shared.contract import Validation
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.models import PostResult

__all__ = ["Approver", "StrikeDesk"]

UNSURE = (ErrorKind.TIMEOUT, ErrorKind.UNAVAILABLE)
log = logging.getLogger(__name__)


class _Answered(PlatformError):
    """The answer to a sent write, once the record says what happened."""


class StrikeDesk:
    def __init__(
        self,
        config: GatewayConfig,
        upstreams: Upstreams,
        records: Records,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.upstreams = upstreams
        self.records = records
        self.clock = clock
        self.settler = Settler(config, upstreams, records, clock)
        self.journal = WriteJournal.beside(records, clock)  # journal: a trace of every send
        self._locks: KeyedLocks[tuple[str, str, str]] = KeyedLocks()

    # -- the chain --------------------------------------------------------------------------

    async def strike(
        self,
        ctx: DraftContext,
        action: StrikeAction | str,
        content: str,
        title: str,
        approve: Approver,
        by: str | None = None,
        handoff: Which = None,
    ) -> StrikeResult:
        """``handoff``: which hand-off a confirm_handoff records (see `confirm_handoff`)."""
        action = StrikeAction(action)
        if action is StrikeAction.CONFIRM_HANDOFF:
            return await self.confirm_handoff(ctx, content, handoff, by)
        await self.journal.ready()  # journal: earlier unrecorded writes are in the record first
        decisions = [f"mode={self.config.gateway.writes}"]
        if by is not None:  # the signed-in caller (HTTP with [auth]); the row's `principal`
            decisions.insert(0, f"by={by}")
        a = Attempt(ctx, action, content.strip(), title, approve, decisions)
        answer = await self._run(OPEN, a)
        if answer is not None:
            return answer
        async with self._locks.hold(a.lock_key):
            answer = await self._run(HELD, a)
        if answer is None:
            raise RuntimeError("the strike chain ended without an answer")
        return answer

    async def _run(self, checks: tuple[Check, ...], a: Attempt) -> StrikeResult | None:
        """The checks in order, up to the first that does not pass: its result."""
        for check in checks:
            step = await check(self, a)
            if step is not None:
                return await self._conclude(a, step)
        return None

    async def _conclude(self, a: Attempt, step: Step) -> StrikeResult:
        if isinstance(step, Refuse):
            return await self._refuse(a, step.reason, step.retry_after)
        if isinstance(step, HandOff):
            return await self._handoff(a, step.reason)
        if isinstance(step, Answer):
            return step.result
        raise TypeError(f"a check answered {step!r}")

    # -- the record -------------------------------------------------------------------------

    async def insert(self, a: Attempt, status: StrikeStatus, **fields: Any) -> Strike:
        row = a.columns(self.config.gateway.writes, status, **fields)
        return await self.records.run(StrikeStore.insert, now=self.clock(), **row)

    async def _refuse(self, a: Attempt, reason: str, retry_after: int | None) -> Refused:
        # A refused row names the drafted post even for a new post: what was looked at.
        post = a.post
        row = await self.insert(
            a,
            StrikeStatus.REFUSED,
            intent_key=intent_key(post.platform, post.id, str(a.action), a.final),
            target=post.id,
            title="",
            reason=reason,
            policy=[*a.decisions, f"refused: {reason}"],
        )
        return Refused(reason=reason, record=row.id, retry_after=retry_after)

    def _request(self, row: dict[str, Any], action: StrikeAction) -> ClaimRequest:
        cap, interval = policy.limits_for(self.config, str(row["platform"]), str(action))
        return ClaimRequest(
            row=row,
            live=self.config.gateway.writes != "dry-run",
            cap=cap,
            interval_s=interval,
            cooldown_days=self.config.safety.author_cooldown_days,
        )

    async def decide(self, a: Attempt, row: dict[str, Any], insert: bool) -> Verdict:
        """The claim's checks (with ``insert``, the claim); an unsure earlier claim is read
        back first."""
        req = self._request(row, a.action)
        verdict = await self._decide_once(req, insert)
        earlier = verdict.earlier
        if earlier is not None and earlier.status in UNSETTLED:
            settled = await self.settler.settle_or_keep(earlier)
            if settled.status == StrikeStatus.FAILED:  # proven absent: the target is free
                verdict = await self._decide_once(req, insert)
            else:
                verdict = Verdict(earlier=settled)
        return verdict

    async def _decide_once(self, req: ClaimRequest, insert: bool) -> Verdict:
        now = self.clock()
        try:
            return await self.records.run(StrikeStore.decide, req, now, insert)
        except PlatformError:
            if insert:  # the claim may still commit: it is never sent (see Settler.unsent)
                self.settler.unsent(str(req.row["intent_key"]), now)
            raise

    def blocked(self, action: StrikeAction, earlier: Strike) -> Duplicate:
        if earlier.status in UNSETTLED and "--resolve" not in earlier.reason:
            return duplicate(action, earlier, self.settler.next_check_in(earlier))
        return duplicate(action, earlier)

    async def claim(self, a: Attempt, row: dict[str, Any]) -> Strike | Refuse | Answer:
        """The atomic claim: the row, or why not (the target is held, or a limit)."""
        verdict = await self.decide(a, row, insert=True)
        if verdict.earlier is not None:
            return Answer(self.blocked(a.action, verdict.earlier))
        if verdict.refusal or verdict.row is None:
            return Refuse(verdict.refusal, wait_s(verdict.retry_after))
        return verdict.row

    async def _handoff(self, a: Attempt, why: str) -> StrikeResult:
        fields = a.columns(
            self.config.gateway.writes,
            StrikeStatus.HANDOFF,
            reason=why,
            approver="human",
            policy=[*a.decisions, "handoff: a person must do this"],
        )
        claimed = await self.claim(a, fields)
        if not isinstance(claimed, Strike):
            return await self._conclude(a, claimed)
        return Handoff(
            reason=why,
            open=a.post.url or None,
            text=a.final or None,
            title=a.title or None,
            record=claimed.id,
            next=f"Give the person the text and the link; once they have posted it, call strike(opportunity_id={a.ctx.opportunity.id!r}, action='confirm_handoff', handoff={claimed.id}, content=<the URL of their post, optional>).",
        )

    # -- the platform (its only two calls) --------------------------------------------------

    async def _platform_validate(
        self, platform: str, action: StrikeAction, body: str, title: str, post_id: str
    ) -> Validation:
        """The platform's verdict on the final text. Raises PlatformError."""
        return await PlatformClient(self.upstreams, platform).validate(
            action.tool, body, title, post_id or None
        )

    async def _platform_write(
        self, platform: str, action: StrikeAction, arguments: dict[str, Any]
    ) -> PostResult:
        """The write itself. Raises PlatformError (its kind says whether it may have landed)."""
        return await PlatformClient(self.upstreams, platform).write(action.tool, arguments)

    # -- the write --------------------------------------------------------------------------

    async def send(self, a: Attempt, row: Strike) -> Posted:
        """Write the claimed row; its result, or PlatformError once the row says what happened."""
        args = would(a.ctx, a.action, a.final, a.title)["arguments"]
        if a.action is StrikeAction.POST:
            args["tags"] = a.post.tags[:4]
        await self.journal.sending(row)  # journal: durable first, or nothing is sent
        try:
            posted = await self._platform_write(a.platform, a.action, args)
        except PlatformError as exc:
            return await self._unrecorded(a, row, self._failed(a, row, exc))
        return await self._unrecorded(a, row, self._posted(row, posted))

    async def _unrecorded(
        self, a: Attempt, row: Strike, after: Coroutine[Any, Any, Posted]
    ) -> Posted:
        """Recording what happened after the write was sent; should the record fail (busy,
        unreachable, disk full), the answer claims only what is known: the outcome is
        unknown, and the claim (still `pending`) keeps the write from being sent again."""
        try:
            answer = await after
        except _Answered:
            await self.journal.recorded(row.id)  # journal: the record has the outcome
            raise  # _failed's own answer, worded for what is known
        except Exception as exc:
            failure = exc
        else:
            await self.journal.recorded(row.id)  # journal: the record has the outcome
            return answer
        log.warning("record %s: sent, but the result could not be recorded: %s", row.id, failure)
        self.settler.returned(row.id)  # read back as soon as the record answers
        raise PlatformError(
            ErrorKind.UNAVAILABLE,
            f"The {a.action} was sent, but the strike record failed while recording its "
            "outcome (the gateway log has why). "
            f"The outcome is unknown (record {row.id}); gwanjong will not send it again (the "
            "write journal keeps it) and reads the platform back to settle it once the record "
            "answers. Should the record stay unusable, stop gwanjong and run "
            "`gwanjong doctor --repair`: it carries this write over.",
        )

    async def _failed(self, a: Attempt, row: Strike, exc: PlatformError) -> Posted:
        platform = a.platform
        pause = self.config.safety.pause_after_failures
        failures = await self.records.run(StrikeStore.record_failure, platform, str(exc), pause)
        note = (
            f" Writes to {platform} are now paused after {failures} failures in a row."
            if failures >= pause
            else ""
        )
        if exc.kind in UNSURE:
            # The write may have landed (or may land late): it holds the target until a
            # read-back proves it either way.
            row = await self.records.run(
                StrikeStore.update,
                row.id,
                status=StrikeStatus.UNKNOWN,
                reason=f"outcome unknown: {exc}",
                now=self.clock(),
            )
            settled = await self.settler.settle(row)
            if settled.status == StrikeStatus.POSTED:
                return Posted(
                    url=settled.result_url or None,
                    record=settled.id,
                    approver=a.approver,
                    reason="The platform answered late; reading back showed the write went through.",
                )
            raise _Answered(
                exc.kind,
                f"{exc.message} The {a.action} may already be written (record {row.id}); "
                f"gwanjong reads the platform back (checking again in {self.settler.next_check_in(settled)} s) "
                f"and will not send it again meanwhile.{note}",
            )
        await self.records.run(
            StrikeStore.update,
            row.id,
            status=StrikeStatus.FAILED,
            reason=str(exc),
            now=self.clock(),
        )
        raise _Answered(
            exc.kind,
            f"{exc.message} The platform refused it: nothing was written (record {row.id}).{note}",
            retry_after=exc.retry_after,
        )

    async def _posted(self, row: Strike, posted: PostResult) -> Posted:
        row = await self.records.run(
            StrikeStore.update,
            row.id,
            status=StrikeStatus.POSTED,
            result_id=posted.id or "",
            result_url=posted.url or "",
            policy=[*row.policy, str(StrikeStatus.POSTED)],
            now=self.clock(),
        )
        await self.records.run(StrikeStore.record_success, row.platform)
        return Posted(
            url=row.result_url or None,
            id=row.result_id or None,
            record=row.id,
            approver=row.approver,
        )

    # -- a person did it ----------------------------------------------------------------------

    async def confirm_handoff(
        self, ctx: DraftContext, url: str, which: Which = None, by: str | None = None
    ) -> StrikeResult:
        """Record as posted by a person the hand-off ``which`` names (its record or its
        action; None: the only one pending here)."""
        opportunity = ctx.opportunity.id
        pending = await self.records.run(
            StrikeStore.pending_handoffs, opportunity, ctx.opportunity.post.platform
        )
        if by is not None:  # signed in: only the caller's own hand-offs, as if no other existed
            pending = [r for r in pending if r.principal == by]
        picked = handoffs.pick(pending, which)
        if isinstance(picked, list) and picked:
            return handoffs.ambiguous(opportunity, which, picked)
        if isinstance(picked, list):
            named = None
            if isinstance(which, int):
                named = await self.records.run(StrikeStore.get, which)
                if named is not None and by is not None and named.principal != by:
                    named = None  # another's record answers as a missing one
            if (
                named is not None
                and named.opportunity == opportunity
                and named.status == StrikeStatus.POSTED
            ):
                return handoffs.already(named)
            raise handoffs.none_fits(opportunity, which, pending, named)
        row = picked
        link = url.strip() if url.strip().startswith("http") else ""
        if not link:
            link = (await self.settler.read_back(row)).url
        confirmed = await self.records.run(
            StrikeStore.confirm_handoff,
            row.id,
            approver="human",
            result_url=link,
            policy=[
                *row.policy,
                f"hand-off confirmed {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(self.clock()))}Z",
                *([f"by={by}"] if by is not None else []),
            ],
            now=self.clock(),
        )
        if confirmed is None:  # another call confirmed it meanwhile
            earlier = await self.records.run(StrikeStore.get, row.id)
            return handoffs.already(earlier or row)
        return Posted(
            url=link or None,
            record=confirmed.id,
            action=str(confirmed.action),
            approver="human",
            reason="Recorded as posted by a person.",
        )
