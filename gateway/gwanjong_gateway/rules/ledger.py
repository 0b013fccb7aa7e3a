"""The strike record's vocabulary (actions, statuses), one row, and what makes two writes
"the same": one intent is (platform, target, action, normalised text), a new post's identity
its text alone; near-identical texts compare by 3-word-shingle Jaccard >= 0.9 (shorter
texts: word sets).
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from gwanjong_gateway.rules.outgoing import TOOLS, Outgoing
from gwanjong_shared.contract.untrusted import normalise

if TYPE_CHECKING:  # the CLI imports this module: keep it free of pydantic
    from gwanjong_gateway.rules.approvals import ApprovalUse
    from gwanjong_shared.contract import Action


class StrikeAction(StrEnum):
    """strike's public `action` values; `tool` is the contract tool that does it."""

    COMMENT = "comment"
    POST = "post"
    UPVOTE = "upvote"
    CONFIRM_HANDOFF = "confirm_handoff"  # a person did it: record it, call nothing

    @property
    def tool(self) -> Action:
        if self is StrikeAction.CONFIRM_HANDOFF:
            raise ValueError("confirm_handoff calls no platform tool")
        return TOOLS[self]

    @property
    def has_text(self) -> bool:
        """Whether the action writes text (an upvote does not)."""
        return self in (StrikeAction.COMMENT, StrikeAction.POST)

    @property
    def targeted(self) -> bool:
        """Whether the action acts on the drafted post (a new post has no target)."""
        return self is not StrikeAction.POST

    @property
    def engages_author(self) -> bool:
        """Whether the action addresses the drafted post's author, so the author cool-down
        counts and checks it: a comment (a reply is one). A new post addresses no one; an
        upvote is not a conversation (no setting makes it count)."""
        return self in ENGAGING


#: The actions the author cool-down counts and checks (`StrikeAction.engages_author`).
ENGAGING = (StrikeAction.COMMENT,)


class StrikeStatus(StrEnum):
    PENDING = "pending"  # claimed, the write is being sent
    POSTED = "posted"
    DRY_RUN = "dry_run"
    HANDOFF = "handoff"  # waits for a person to post it by hand (their queue)
    DISMISSED = "dismissed"  # a hand-off the person chose not to post
    EXPIRED = "expired"  # a hand-off left past `[review] handoff_expire_after_s`
    DECLINED = "declined"
    REFUSED = "refused"
    FAILED = "failed"  # proven not written
    UNKNOWN = "unknown"  # may have been written; blocks the intent until settled
    DUPLICATE = "duplicate"  # a result only, never stored: an earlier row holds the target
    # a result only: the write waits for a person (the `approvals` table holds it)
    PENDING_APPROVAL = "pending_approval"


#: What a row can hold (`history --status`); `duplicate` is only ever an answer.
RECORDED = tuple(
    s for s in StrikeStatus if s not in (StrikeStatus.DUPLICATE, StrikeStatus.PENDING_APPROVAL)
)
#: How a person may settle an unsure row (`history --resolve N --as ...`).
RESOLVABLE = (StrikeStatus.POSTED, StrikeStatus.FAILED)


#: Statuses that hold a target: no second write while one of these stands.
HOLDING = (StrikeStatus.PENDING, StrikeStatus.POSTED, StrikeStatus.HANDOFF, StrikeStatus.UNKNOWN)
#: Statuses that count against caps and the minimum interval (in-flight ones included),
#: and start the author cool-down: a hand-off only once it is posted.
WRITING = (StrikeStatus.PENDING, StrikeStatus.POSTED, StrikeStatus.UNKNOWN)
#: Statuses whose outcome is not known yet.
UNSETTLED = (StrikeStatus.PENDING, StrikeStatus.UNKNOWN)

SIMILAR = 0.9
_WORD = re.compile(r"\w+", re.UNICODE)


def content_hash(text: str) -> str:
    return hashlib.sha256(normalise(text).encode()).hexdigest()[:16]


def intent_key(platform: str, target: str, action: str, text: str) -> str:
    """A new post (target "") is identified by its text only, whichever opportunity."""
    what = f"{target}|{action}" if target else "post"
    return hashlib.sha256(f"{platform}|{what}|{content_hash(text)}".encode()).hexdigest()[:24]


def _shingles(text: str) -> set[str]:
    words = _WORD.findall(normalise(text))
    if len(words) < 3:
        return set(words)
    return {" ".join(words[i : i + 3]) for i in range(len(words) - 2)}


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two texts' 3-word shingles, in [0, 1]."""
    sa, sb = _shingles(a), _shingles(b)
    if not sa or not sb:
        return 1.0 if normalise(a) == normalise(b) else 0.0
    return len(sa & sb) / len(sa | sb)


@dataclass(frozen=True)
class Strike:
    id: int
    intent_key: str
    platform: str
    target: str
    target_url: str
    author: str
    opportunity: str
    action: StrikeAction
    content_hash: str
    content: str
    title: str
    mode: str
    status: StrikeStatus
    reason: str
    approver: str
    result_id: str
    result_url: str
    context: dict[str, Any]
    policy: list[Any]
    created_at: float
    updated_at: float
    principal: str = ""  # the signed-in caller who made the strike ("" = stdio/no auth)
    readbacks: int = 0  # read-backs of an unsure write that found it absent (strike/settle.py)
    confirmed_by: str = ""  # the signed-in caller who confirmed a hand-off ("" = none/no auth)
    # an unsure write that cannot be read back past its settle window: a person settles it
    needs_person: bool = False
    # the model said a person posted this hand-off, but no proof was found (strike/proof.py):
    # when (0 = never), and the link it gave, if it was a well-formed http(s) one
    claimed_at: float = 0.0
    claimed_url: str = ""
    # the lease of the read-back under way (strike/settle.py): whose, and until when (wall)
    settling_until: float = 0.0
    settling_by: str = ""
    # the strike's trace context (W3C hex), which the settlement's span links to
    trace_id: str = ""
    span_id: str = ""
    account: str = ""  # whom the write went out as, as the platform last said ("" = unknown)

    @property
    def write(self) -> Outgoing:
        """What a hand-off asks the person to post, as the one write model."""
        return Outgoing.model_validate(
            {
                "platform": self.platform,
                "action": str(self.action),
                "target": self.target,
                "target_url": self.target_url if self.action.targeted else "",
                "destination": str(self.context.get("destination", "")),  # kept by `columns`
                "title": self.title,
                "text": self.content,
            }
        )

    def public(self) -> dict[str, Any]:
        """What a tool result or `history` shows (the context stays in the record)."""
        return {
            "record": self.id,
            "platform": self.platform,
            "action": str(self.action),
            # a new post's is where it goes, not the post it was drafted from
            "target": self.write.target_of()
            if self.action is StrikeAction.POST
            else self.target_url or self.target,
            "status": str(self.status),
            "reason": self.reason,
            "approver": self.approver,
            "url": self.result_url,
            "at": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(self.updated_at)) + "Z",
        }


@dataclass(frozen=True)
class ClaimRequest:
    """One write about to be claimed: the row to insert and what the checks need."""

    row: dict[str, Any]  # the columns (status pending or handoff)
    live: bool  # confirm/live: caps and the minimum interval apply
    cap: int | None  # today's cap for this action on this platform
    interval_s: float
    cooldown_days: float
    approval: ApprovalUse | None = None  # consumed with the claim, in its transaction
    sent: str = ""  # with an approval: the write's canonical JSON (`Outgoing`), kept on it
    length: dict[str, Any] | None = None  # with an approval: the platform's count, kept on it

    @property
    def platform(self) -> str:
        return str(self.row["platform"])

    @property
    def target(self) -> str:
        return str(self.row["target"])

    @property
    def action(self) -> StrikeAction:
        return StrikeAction(self.row["action"])


@dataclass(frozen=True)
class Verdict:
    """The claim's answer: granted (row), blocked by an earlier claim, or refused."""

    row: Strike | None = None
    earlier: Strike | None = None
    refusal: str = ""
    retry_after: float | None = None
