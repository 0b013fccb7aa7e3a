"""strike's rows in the record: the claim's checks (target held, cool-down, daily cap,
interval) and the claim, in one transaction (`decide`), and the rows of strikes that send
nothing. An earlier claim whose outcome is unknown is read back first (`Settler`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.rows.approval_rows import NewApproval
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules import approvals, policy
from gwanjong_gateway.rules.approvals import Approval, ApprovalStatus, Channel
from gwanjong_gateway.rules.ledger import (
    UNSETTLED,
    ClaimRequest,
    Strike,
    StrikeAction,
    StrikeStatus,
    Verdict,
    intent_key,
)
from gwanjong_gateway.rules.refs import handoff_ref
from gwanjong_gateway.strike.attempt import Answer, Attempt, Refuse, wait_s
from gwanjong_gateway.strike.results import Declined, Duplicate, Handoff, Refused
from gwanjong_gateway.strike.settle import Settler
from gwanjong_gateway.strike.wording import duplicate
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.contract.untrusted import one_line


class Claims:
    """The record's side of a strike: the limits of gateway.toml, checked and claimed."""

    def __init__(
        self, config: GatewayConfig, records: Records, settler: Settler, clock: Callable[[], float]
    ) -> None:
        self.config = config  # the limits: daily caps, minimum interval, author cool-down
        self.records = records
        self.settler = settler
        self.clock = clock

    async def paused(self, platform: str) -> str:
        """Why writes to ``platform`` are paused ("" when they are not)."""
        return await self.records.run(StrikeStore.paused, platform)

    async def insert(self, a: Attempt, status: StrikeStatus, **fields: Any) -> Strike:
        return await self.records.run(
            StrikeStore.insert, now=self.clock(), **a.columns(status, **fields)
        )

    async def save_dry_run(self, a: Attempt, **fields: Any) -> Strike:
        """The dry run's row; the same dry run again updates it rather than adding one."""
        row = a.columns(StrikeStatus.DRY_RUN, **fields)
        return await self.records.run(StrikeStore.save_dry_run, now=self.clock(), **row)

    async def refuse(self, a: Attempt, reason: str, retry_after: int | None) -> Refused:
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

    def _request(self, a: Attempt, row: dict[str, Any]) -> ClaimRequest:
        sent = a.outgoing.canonical().decode("utf-8") if a.approval else ""
        live = a.mode != "dry-run"
        return policy.claim_request(self.config, row, live, a.approval, sent, _length(a))

    async def looks_clear(self, a: Attempt) -> bool:
        """Whether the claim's checks pass now (read unlocked; nothing settled or claimed)."""
        verdict = await self._decide_once(self._request(a, a.columns(StrikeStatus.PENDING)), False)
        return verdict.earlier is None and not verdict.refusal

    async def decide(self, a: Attempt, row: dict[str, Any], insert: bool) -> Verdict:
        """The claim's checks (with ``insert``, the claim); an unsure earlier claim is read
        back first."""
        req = self._request(a, row)
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
            if not insert:  # the checks alone only read
                return await self.records.run(StrikeStore.check, req, now)
            return await self.records.run(StrikeStore.decide, req, now, True)
        except PlatformError:
            if insert:  # the claim may still commit: it is never sent (see Settler.unsent)
                self.settler.unsent(str(req.row["intent_key"]), now)
            raise

    def blocked(self, action: StrikeAction, earlier: Strike) -> Duplicate:
        if earlier.status in UNSETTLED and not earlier.needs_person:
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

    # -- approvals: a write waiting for a person ------------------------------------------

    async def pending_approval(self, a: Attempt) -> Approval | None:
        """The approval already waiting on this target (a new post: this text), if any."""
        return await self.records.run(StrikeStore.pending_approval, a.lock_key, self.clock())

    async def open_approval(self, a: Attempt) -> tuple[Approval, str]:
        """The pending approval of this write, and its one-time token, the card's (the
        page's is `approvals.page_token` of it; "" when one was already waiting: its token
        went to whoever opened it)."""
        token = secrets.token_urlsafe(32)  # 256 bits
        now = self.clock()
        sent = a.outgoing  # what the person approves: all that will be sent
        approval, created = await self.records.run(
            StrikeStore.open_approval,
            now,
            NewApproval(
                principal=a.principal,
                platform=a.platform,
                target=a.target,
                target_url=a.post.url,
                author=a.post.author,
                opportunity=a.ctx.opportunity.id,
                action=str(a.action),
                intent_key=a.key,
                lock_key=a.lock_key,
                title=a.title,
                text=a.final,
                body=a.text,
                digest=sent.digest(),
                outgoing=sent.canonical().decode("utf-8"),
                post=a.post.model_dump(mode="json"),
                context={**a.ctx.shown, "length": _length(a)},
                policy=a.decisions,
                expires_at=now + self.config.review.expire_after_s,
                # the page token's hash: the card's token makes the page's, never the reverse
                token_hash=approvals.token_hash(approvals.page_token(token)),
            ),
        )
        return approval, token if created else ""

    async def decline(
        self, a: Attempt, approval: Approval, by: str, channel: Channel, reason: str = ""
    ) -> Declined | Refused:
        """The person declined: the approval closes with their ``reason`` (their own
        words, cleaned) and a `declined` row says so."""
        reason = one_line(reason, 300)
        closed = await self.records.run(
            StrikeStore.close_approval,
            approval.id,
            ApprovalStatus.DECLINED,
            self.clock(),
            by=by,
            channel=str(channel),
            reason=reason,
        )
        if closed is None:  # decided meanwhile, or expired
            current = await self.records.run(StrikeStore.approval, approval.id)
            state = current.status_at(self.clock()) if current is not None else "gone"
            return Refused(reason=f"Approval {approval.id} is already {state}: nothing changed.")
        why = f"Declined by {by} via {channel}" + (f": {reason}" if reason else ".")
        row = await self.insert(
            a,
            StrikeStatus.DECLINED,
            reason=why,
            approver="human",
            confirmed_by=by,
            policy=[*a.decisions, f"declined by {by} via {channel} (approval {approval.id})"],
        )
        await self.records.run(StrikeStore.link_approval, approval.id, row.id)
        return Declined(
            reason=f"{why} Nothing was written (approval {approval.id}).", record=row.id
        )

    async def hand_off(self, a: Attempt, why: str) -> Answer | Refuse:
        """Claim the text as a `handoff` row: the person's instructions, or why not."""
        fields = a.columns(
            StrikeStatus.HANDOFF,
            reason=why,
            approver="human",
            policy=[*a.decisions, "handoff: a person must do this"],
        )
        claimed = await self.claim(a, fields)
        if not isinstance(claimed, Strike):
            return claimed
        sent = a.outgoing
        give = f"where it goes: {sent.where()}" if sent.action == "post" else "the link"
        return Answer(
            Handoff(
                reason=why,
                open=sent.target_url or None,  # a new post's is no place to post it
                text=a.final or None,
                title=a.title or None,
                record=claimed.id,
                next=f"Give the person the text and {give} (hand-off {handoff_ref(claimed.id)} waits in their queue: `gwanjong review`, the console). Once it is on the platform, strike(opportunity_id={a.ctx.opportunity.ref!r}, action='confirm_handoff', handoff={claimed.id}, content=<the URL of their post, optional>) records it posted when the gateway finds it there; only the person closes it otherwise.",
            )
        )


def _length(a: Attempt) -> dict[str, Any] | None:
    """The platform's count of the text, as its `validate` answered: kept with the approval
    so every surface says the platform's count, never Python's (`Approval.size`)."""
    return a.validation.length.model_dump() if a.validation is not None else None
