"""One strike on its way through the checks (`Attempt`), and what a check answers.

A check answers `PASS` (go on), `Refuse(reason)`, `HandOff(reason)` (a person must do it)
or `Answer(result)` (the strike ends here with that result). Everything in strike passes
these along; this module imports nothing of strike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from gwanjong_gateway.platforms.upstreams import Reservation
from gwanjong_gateway.rules.approvals import Approval, ApprovalUse, Channel, lock_key
from gwanjong_gateway.rules.ledger import Strike, StrikeAction, StrikeStatus, Verdict, content_hash
from gwanjong_gateway.rules.outgoing import Outgoing
from gwanjong_gateway.scout.state import DraftContext
from gwanjong_gateway.strike.results import StrikeResult
from gwanjong_shared.contract import Validation
from gwanjong_shared.contract.models import Post

Decision = Literal["approve", "decline", "pending"]


@dataclass(frozen=True)
class Ask:
    """What asking the person gave: their decision, or why the approval stays pending."""

    decision: Decision
    why: str = ""  # said to the model: what happened, in plain words
    channel: Channel = Channel.ELICITATION
    how: list[str] = field(default_factory=list[str])  # where else the person can decide


class Asker(Protocol):
    """How a strike asks the person about a pending approval (strike/elicitation.py)."""

    def answer_for(self, approval: Approval, now: float) -> Ask | None:
        """The client's answer about ``approval`` carried by this very request, if any."""
        ...

    async def ask(self, approval: Approval, token: str) -> Ask:
        """Ask the person now; ``token``: the approval's one-time token (a page link is
        made with `approvals.page_token` of it, never the token itself)."""
        ...


class NoAsking:
    """Nobody to ask: an approval executed from the terminal, a page or an app card."""

    def answer_for(self, approval: Approval, now: float) -> Ask | None:
        return None

    async def ask(self, approval: Approval, token: str) -> Ask:
        return Ask("pending", "nobody was asked")


@dataclass(frozen=True)
class Refuse:
    """Nothing is written; the reason is recorded as a `refused` row."""

    reason: str
    retry_after: int | None = None
    #: only asks to wait (a pause, a limit): an approval being executed stays pending
    waits: bool = False


@dataclass(frozen=True)
class HandOff:
    """A person must do it: the text is claimed as a `handoff` row and handed over."""

    reason: str


@dataclass(frozen=True)
class Answer:
    """The strike ends with this result (its row, if any, is already recorded)."""

    result: StrikeResult


@dataclass(frozen=True)
class AskPerson:
    """The write now waits for a person as ``approval``: the desk asks them in the client
    once the target's lock is let go (a dialog may stay open for minutes, and the person
    may decide elsewhere meanwhile, which takes that lock)."""

    approval: Approval
    token: str  # the approval's one-time token: the app card's (a page link: `page_token`)


PASS = None
Step = Refuse | HandOff | Answer | AskPerson | None


def wait_s(wait: float | None) -> int | None:
    """A retry-after in whole seconds, at least one."""
    return None if wait is None else max(1, round(wait))


@dataclass
class Attempt:
    """One strike on its way through the checks."""

    ctx: DraftContext
    action: StrikeAction
    text: str  # the model's text, stripped
    title: str
    asker: Asker  # how the person is asked, when a write waits for them
    decisions: list[str]  # the policy decisions, in order: the record's `policy`
    mode: str  # gateway.writes when the strike began: dry-run | confirm | live
    principal: str = ""  # the signed-in caller (HTTP with [auth]); "" = stdio / no auth
    final: str = ""  # what will be sent: the text with the disclosure footer (upvote: "")
    key: str = ""  # the intent key of `final`
    footer: bool = False  # a disclosure footer is configured
    verdict: Verdict | None = None  # the claim's checks, run once without claiming
    validation: Validation | None = None  # the platform's verdict on `final`
    #: `validate` asked before the target's lock (`early_rules`): what was asked, its answer
    early: tuple[Outgoing, Validation | Exception] | None = None
    approver: str = "auto"
    row: Strike | None = None  # the claimed `pending` row
    approval: ApprovalUse | None = None  # a person's approval being executed
    prepaid: Reservation | None = None  # the write's spend, reserved before the claim
    tags: tuple[str, ...] = ()  # a new post's tags: only a person adds them
    account: str = ""  # whom we write as, as the platform last said
    destination: str = ""  # where a new post goes beyond the account, as the platform said
    sent_with: dict[str, str] = field(default_factory=dict[str, str])  # what else it sends
    paused: str | None = None  # why writes are paused, read with the sweep; None: not read
    kept: bool = False  # the approval being executed was refused but stays pending

    @property
    def outgoing(self) -> Outgoing:
        """Everything this write sends: what a person approves and the platform receives."""
        return Outgoing.model_validate(
            {
                "platform": self.platform,
                "account": self.account,
                "action": str(self.action),
                "target": self.target,
                "target_url": self.post.url if self.action.targeted else "",
                "destination": self.destination if self.action is StrikeAction.POST else "",
                "title": self.title if self.action is StrikeAction.POST else "",
                "text": self.final if self.action.has_text else "",
                "tags": self.tags if self.action is StrikeAction.POST else (),
                "sent_with": self.sent_with if self.action.has_text else {},
            }
        )

    def __post_init__(self) -> None:
        self.final = self.final or self.text
        if self.action is not StrikeAction.POST:
            self.title = ""  # only a new post has one: nothing is shown that is not sent

    def columns(self, status: StrikeStatus, **fields: Any) -> dict[str, Any]:
        """A record row: the target and the final text of this attempt, plus ``fields``."""
        return {
            "intent_key": self.key,
            "platform": self.platform,
            "target": self.target,
            "target_url": self.post.url,
            "author": self.post.author,
            "opportunity": self.ctx.opportunity.id,
            "action": str(self.action),
            "content_hash": content_hash(self.final),
            "content": self.final,
            "title": self.title,
            "mode": self.mode,
            # where a new post goes, for the history and the person's queue to say
            "context": {**self.ctx.shown, "destination": self.destination}
            if self.action is StrikeAction.POST and self.destination
            else self.ctx.shown,
            "status": status,
            "policy": self.decisions,
            "principal": self.principal,
            "account": self.account,
            **fields,
        }

    @property
    def post(self) -> Post:
        return self.ctx.opportunity.post

    @property
    def platform(self) -> str:
        return self.post.platform

    @property
    def target(self) -> str:
        """The post acted on; "" for a new post."""
        return self.post.id if self.action.targeted else ""

    @property
    def lock_key(self) -> str:
        """The target's key: its lock, and its one pending approval (a new post: its text)."""
        return lock_key(self.platform, self.target, self.key, str(self.action))
