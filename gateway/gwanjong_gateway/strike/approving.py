"""A write waiting for a person, as strike answers it (`pending`) and as it runs again
when the person approves it (`attempt_for`). Imports `attempt` and `results` of strike."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules import approvals, policy
from gwanjong_gateway.rules.approvals import (
    Approval,
    ApprovalStatus,
    ApprovalUse,
    Channel,
    Hold,
    iso,
)
from gwanjong_gateway.rules.ledger import StrikeAction
from gwanjong_gateway.rules.outgoing import Edit, Outgoing
from gwanjong_gateway.rules.profiles import Profiles
from gwanjong_gateway.rules.refs import approval_ref
from gwanjong_gateway.scout.state import DraftContext, Opportunity
from gwanjong_gateway.strike.attempt import Ask, Attempt, NoAsking
from gwanjong_gateway.strike.holds import hold_of
from gwanjong_gateway.strike.results import (
    ApprovalInfo,
    Duplicate,
    PendingApproval,
    Refused,
    StrikeResult,
)
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.models import Post
from gwanjong_shared.contract.untrusted import one_line


def ways(approval: Approval, ask: Ask) -> list[str]:
    """Where the person can decide this approval, in plain words."""
    found = list(ask.how)
    if ask.channel == "page" and ask.decision == "pending":
        found.append("the approval page the client opened for the person")
    found.append(
        f"a terminal on the gateway's machine: gwanjong review approve {approval_ref(approval.id)} "
        f"(or: gwanjong review decline {approval_ref(approval.id)})"
    )
    found.append("the console's Approvals page (the person runs `gwanjong console`)")
    return found


def pending(approval: Approval, ask: Ask) -> PendingApproval:
    """strike's answer for a write that waits for a person."""
    return PendingApproval(
        approval=ApprovalInfo(
            id=approval.id, expires_at=iso(approval.expires_at), how=ways(approval, ask)
        ),
        reason=(
            f"{ask.why} Nothing was written yet: the person approves or declines approval "
            f"{approval.id} (exactly this text) before {iso(approval.expires_at)}. You need do "
            "nothing more; status() shows how it ended."
        ).strip(),
    )


def attempt_for(
    approval: Approval, use: ApprovalUse, mode: str, edit: Edit | None = None
) -> Attempt:
    """The strike again, as the person approved it: the same target, text, title and tags
    (or the person's ``edit`` of them), from the top of the chain."""
    post = Post.model_validate(approval.post)
    ctx = DraftContext(
        opportunity=Opportunity(approval.opportunity, post, 0.0, "approved by a person"),
        capabilities=None,  # the platform's `validate` runs again in the chain
        validation={},
        shown=approval.context,
    )
    how = f"approved by {use.by} via {use.channel} (approval {approval.id})"
    edit = edit or Edit()
    if use.edited:
        parts = [
            n
            for n, v in (("text", edit.text), ("title", edit.title), ("tags", edit.tags))
            if v is not None
        ]
        how += f", {' and '.join(parts) or 'write'} edited by them"
    return Attempt(
        ctx,
        StrikeAction(approval.action),
        (approval.body if edit.text is None else edit.text).strip(),
        approval.title if edit.title is None else edit.title.strip(),
        NoAsking(),
        [*[str(d) for d in approval.policy], how],
        mode=mode,
        principal=approval.principal,
        approver="human",
        approval=use,
        tags=approval.tags if edit.tags is None else edit.tags,
    )


@dataclass(eq=False)
class Approving:
    """The record's side of a person's decision: who may decide, the edit's rules, and
    closing an approval the chain did not consume."""

    config: GatewayConfig
    records: Records
    profiles: Profiles
    clock: Callable[[], float]

    def may_decide(self, approval: Approval, who: str | None) -> bool:
        """The operator (None) decides all; a signed-in person their own, an approver all."""
        return who is None or approval.principal == who or who in self.config.review.approvers

    async def open_for(
        self,
        approval_id: int,
        who: str | None,
        token: str | None,
        channel: Channel | None = None,
    ) -> Approval:
        """The pending approval a person may decide now; a ``token`` must be its token for
        ``channel`` (the page's or the card's). Raises PlatformError (not_found for one they
        may not see, so ids are no oracle; invalid_input when it is decided)."""
        approval = await self.records.run(StrikeStore.approval, approval_id)
        if (
            approval is not None
            and token is not None
            and not approvals.token_fits(approval, token, channel)
        ):
            approval = None
        if approval is None or not self.may_decide(approval, who):
            raise PlatformError(
                ErrorKind.NOT_FOUND,
                f"No approval {approval_id} that you may decide; `gwanjong review list` shows them.",
            )
        now = self.clock()
        state = approval.status_at(now)
        if state is ApprovalStatus.EXPIRED:
            raise PlatformError(
                ErrorKind.INVALID_INPUT,
                f"Approval {approval.id} expired at {iso(approval.expires_at)}: nothing was sent. "
                "The model can strike again for a new one.",
            )
        if state is not ApprovalStatus.PENDING:
            by = f" by {approval.decided_by}" if approval.decided_by else ""
            raise PlatformError(
                ErrorKind.INVALID_INPUT,
                f"Approval {approval.id} was already {state}{by}"
                f"{' at ' + iso(approval.decided_at) if approval.decided_at else ''}: nothing more is sent.",
            )
        return approval

    def use(self, approval: Approval, by: str, channel: Channel, edit: Edit | None) -> ApprovalUse:
        """The approval as it will be executed; a person's edit (text, title, tags) is
        checked first (the disclosure footer stays; only a new post has a title and tags)
        and its write's digest becomes the one to send."""
        after = self.write_for(approval, edit)
        if after is None:
            return ApprovalUse(approval.id, approval.digest, by, channel)
        return ApprovalUse(approval.id, after.digest(), by, channel, edited=True)

    def write_for(self, approval: Approval, edit: Edit | None) -> Outgoing | None:
        """The write ``edit`` makes of ``approval`` (None: it changes nothing). Raises
        PlatformError (invalid_input) for an edit that may not be made."""
        changes = self._changes(approval, edit or Edit())
        if not changes:
            return None
        return approval.write.edited(**changes)

    def _changes(self, approval: Approval, edit: Edit) -> dict[str, Any]:
        """What ``edit`` changes, checked. Raises PlatformError (invalid_input)."""
        action = StrikeAction(approval.action)
        changes: dict[str, Any] = {}
        if (edit.title is not None or edit.tags is not None) and action is not StrikeAction.POST:
            raise PlatformError(
                ErrorKind.INVALID_INPUT,
                f"Only a new post has a title and tags; this is a {action}. Edit the text only.",
            )
        if edit.title is not None and edit.title.strip() != approval.title:
            changes["title"] = edit.title.strip()
            if self.profiles.untitled(approval.platform):
                raise PlatformError(
                    ErrorKind.INVALID_INPUT,
                    f"{approval.platform} posts have no title: edit the text (its first "
                    "paragraph) instead.",
                )
        if edit.tags is not None and edit.tags != approval.tags:
            changes["tags"] = edit.tags
        if edit.text is None or edit.text.strip() == approval.text:
            return changes
        if not action.has_text:
            raise PlatformError(ErrorKind.INVALID_INPUT, "An upvote has no text to edit.")
        edited = edit.text.strip()
        if not edited:
            raise PlatformError(
                ErrorKind.INVALID_INPUT, "The edited text is empty: decline instead."
            )
        footer = policy.disclosure_for(self.config, approval.platform, self.profiles).strip()
        if footer and not edited.endswith(footer):
            raise PlatformError(
                ErrorKind.INVALID_INPUT,
                f"Keep the disclosure footer at the end of the text: {footer!r}.",
            )
        changes["text"] = edited
        return changes

    async def left(self, approval_id: int, ref: str | None = None) -> str:
        """What a refused try on approval ``approval_id`` leaves, as the record says now: it
        still waits, or (expired or decided while the try ran) it waits no more. ``ref``:
        how the approval is named (the terminal's ``a3``); its id by default."""
        approval = await self.records.run(StrikeStore.approval, approval_id)
        now = self.clock()
        name = ref or str(approval_id)
        if approval is not None and approval.open_at(now):
            return f"Nothing was sent; approval {name} still waits."
        state = approval.status_at(now) if approval is not None else "gone"
        if state is ApprovalStatus.EXPIRED:
            return f"Approval {name} expired: the model can strike again for a new one."
        return f"Approval {name} waits no more ({state})."

    async def hold(self, approval: Approval) -> Hold | None:
        return await self.records.run(hold_of, self.config, approval, self.clock())

    async def declined_before_id(self, approval_id: int) -> str:
        """What the model is told of a person's decline of the same target before approval
        ``approval_id``: their reason, cleaned ("" when the last one was no decline)."""
        approval = await self.records.run(StrikeStore.approval, approval_id)
        if approval is None:
            return ""
        earlier = await self.records.run(StrikeStore.last_before, approval.lock_key, approval.id)
        if earlier is None or earlier.status is not ApprovalStatus.DECLINED:
            return ""
        if earlier.principal != approval.principal:  # another member's approval and words
            return ""
        at = iso(earlier.decided_at) if earlier.decided_at else "an earlier approval"
        why = one_line(earlier.reason, 300)
        said = f": {why}" if why else " (no reason given)"
        return f"A person declined this on {at} (approval {earlier.id}){said}."

    async def unconsumed(self, use: ApprovalUse, answer: StrikeResult) -> None:
        """An approval the chain did not consume is closed as refused, with the reason, unless kept
        pending (`Attempt.kept`) or the mode is dry-run."""
        if isinstance(answer, (Refused, Duplicate)):
            record = answer.record if isinstance(answer, Refused) else None
            await self.records.run(
                StrikeStore.close_approval,
                use.id,
                ApprovalStatus.REFUSED,
                self.clock(),
                by=use.by,
                channel=str(use.channel),
                reason=answer.reason,
                record=record,
            )
