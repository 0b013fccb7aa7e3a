"""What strike answers: one model per status, told apart by `status` (`StrikeResult`).

The status strings are the record's (`StrikeStatus`), unchanged: clients read them.
`record` is the strike record's row id (`gwanjong history`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_gateway.wire import Link, Quoted, Result, optional


class Earlier(Result):
    """The row that already holds the target (`Strike.public()`)."""

    record: int
    platform: str
    action: str
    target: Link
    status: str
    reason: Quoted
    approver: str
    url: Link
    at: str


class Arguments(Result):
    """The platform call a dry run would make (a new post has no post_id; an upvote no body)."""

    body: str | None = optional()
    post_id: str | None = optional()
    title: str | None = optional()


class Would(Result):
    platform: str
    tool: str
    arguments: Arguments
    target: str | None  # null: a new post
    destination: str | None = optional("where a new post goes beyond the account (r/<name>)")
    sent_with: dict[str, str] | None = optional("what else the platform's server sends with it")


class Choice(Result):
    """One pending hand-off, for the model to name by its record."""

    record: int
    action: str
    open: Link | None = optional()
    title: str | None = optional()
    text: str | None = optional()


class Posted(Result):
    status: Literal[StrikeStatus.POSTED] = StrikeStatus.POSTED
    url: Link | None = optional()
    id: str | None = optional()
    record: int
    action: str | None = optional()
    approver: str
    reason: Quoted | None = optional()


class DryRun(Result):
    status: Literal[StrikeStatus.DRY_RUN] = StrikeStatus.DRY_RUN
    would: Would
    record: int
    reason: str


class Handoff(Result):
    status: Literal[StrikeStatus.HANDOFF] = StrikeStatus.HANDOFF
    reason: Quoted
    open: Link | None = optional()
    text: str | None = optional()
    title: str | None = optional()
    record: int
    next: str


class Declined(Result):
    status: Literal[StrikeStatus.DECLINED] = StrikeStatus.DECLINED
    reason: Quoted
    record: int


class Refused(Result):
    status: Literal[StrikeStatus.REFUSED] = StrikeStatus.REFUSED
    reason: Quoted
    record: int | None = optional()
    retry_after: int | None = optional()
    choices: list[Choice] | None = optional()


class Duplicate(Result):
    status: Literal[StrikeStatus.DUPLICATE] = StrikeStatus.DUPLICATE
    reason: Quoted
    # absent in team mode when another member's row holds the target (theirs to read)
    earlier: Earlier | None = optional()
    retry_after: int | None = optional()
    # Whose row `earlier` is, when the answer was built from that row (team mode's privacy
    # then needs no second read): never serialized; None: not known here, read the record.
    holder: str | None = Field(default=None, exclude=True, repr=False)


class ApprovalInfo(Result):
    """The approval a person decides (`gwanjong review`); ``how``: where they can."""

    id: int
    expires_at: str
    how: list[str]


class PendingApproval(Result):
    status: Literal[StrikeStatus.PENDING_APPROVAL] = StrikeStatus.PENDING_APPROVAL
    approval: ApprovalInfo
    reason: str
    # The approval's one-time token when this strike opened it, for an MCP Apps card only
    # (the result's `_meta`): never serialized into what the model reads, nor in a log.
    token: str = Field(default="", exclude=True, repr=False)


StrikeResult = Annotated[
    Posted | DryRun | Handoff | Declined | Refused | Duplicate | PendingApproval,
    Field(discriminator="status"),
]
