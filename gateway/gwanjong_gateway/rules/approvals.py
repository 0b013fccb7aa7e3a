"""A pending approval: one exact write (`rules.outgoing.Outgoing`) waiting for a person, with
the SHA-256 of its canonical bytes, who asked, and when it expires. Approving re-runs the
whole chain and consumes the approval in the claim's transaction, so it executes at most
once. This module says what an approval holds; `record` keeps it, `strike` acts on it.
"""

from __future__ import annotations

import base64
import getpass
import hashlib
import hmac
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import ValidationError

from gwanjong_gateway.rules.outgoing import Outgoing
from gwanjong_shared.contract import Length


class ApprovalStatus(StrEnum):
    PENDING = "pending"  # waiting for a person
    APPROVED = "approved"  # consumed: the write was claimed (`record` is its row)
    DECLINED = "declined"
    EXPIRED = "expired"
    REFUSED = "refused"  # approved, but the chain refused it when it ran (`reason`)


class Channel(StrEnum):
    """Where the person decided."""

    ELICITATION = "elicitation"  # the client's dialog (form, or a stateless-era input request)
    PAGE = "page"  # the one-approval page (URL-mode elicitation)
    TERMINAL = "terminal"  # `gwanjong review`
    APP = "app"  # the MCP Apps card, through the app-only tool
    CONSOLE = "console"


def token_hash(token: str) -> str:
    """What is kept of a one-time token (never the token): its SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


def page_token(token: str) -> str:
    """The one-approval page's token, made one way from the approval's (the card's): a
    client may show the model the page's link, and no card token follows from it. The
    record keeps `token_hash(page_token(token))`."""
    mac = hmac.new(token.encode(), b"gwanjong approval page", hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def token_fits(approval: Approval, token: str, channel: Channel | None) -> bool:
    """Whether ``token`` decides ``approval`` on ``channel`` (constant time): the page takes
    its link's token, the card its own; neither passes for the other, no other channel takes one."""
    if channel is Channel.APP:
        token = page_token(token)
    elif channel is not Channel.PAGE:
        return False
    return hmac.compare_digest(token_hash(token), approval.token_hash)


#: the contract's length units, as a person reads them
UNITS = {"chars": "characters", "weighted_chars": "weighted characters"}


def lock_key(platform: str, target: str, intent: str, action: str) -> str:
    """At most one pending approval per key: the target (a new post: its intent)."""
    return f"{platform}|{target or intent}|{action}"


def iso(at: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


def operator_name() -> str:
    """The local operator's one name on every channel: their OS login name."""
    try:
        return getpass.getuser()
    except Exception:  # no login name in the environment or the password database
        return "operator"


def person(principal: str | None) -> str:
    """Who decides, as the audit names them everywhere: a signed-in member by their
    principal, the local operator (no sign-in: stdio, the terminal, the console's link)
    by their OS login name."""
    return principal or operator_name()


@dataclass(frozen=True)
class Hold:
    """Why a pending approval cannot be sent now (a pause, the author cool-down, the daily
    cap, the minimum interval): approving it would only be refused. ``until``: from when
    it could be sent (None: once a person resumes writes)."""

    why: str
    until: float | None

    def said(self) -> str:
        when = f"it could be sent from {iso(self.until)}" if self.until else "until writes resume"
        return f"Blocked: {self.why} ({when})"


@dataclass(frozen=True)
class Approval:
    id: int
    principal: str  # who asked ("" = stdio / no sign-in)
    platform: str
    target: str
    target_url: str
    author: str
    opportunity: str
    action: str
    intent_key: str
    lock_key: str
    title: str
    text: str  # the exact final text that will be sent (footer included)
    body: str  # the model's text, before the footer
    digest: str  # SHA-256 of `write`'s canonical bytes (older rows: of [title, text])
    post: dict[str, Any]  # the drafted post (contract `Post`), to run the chain again
    context: dict[str, Any]  # what the model saw in draft
    policy: list[Any]  # the decisions so far
    status: ApprovalStatus
    created_at: float
    expires_at: float
    decided_at: float | None
    decided_by: str
    channel: str
    reason: str
    edited: bool
    record: int | None  # the strike row it became (approved, declined or refused)
    token_hash: str  # of its page token (`page_token`)
    outgoing: str = ""  # `write`, as its canonical JSON ("" in rows from before it)

    @property
    def write(self) -> Outgoing:
        """Everything this approval sends (a row from before the model: no tags)."""
        if self.outgoing:
            return Outgoing.load(self.outgoing)
        return Outgoing.model_validate(
            {
                "platform": self.platform,
                "action": self.action,
                "target": self.target,
                "target_url": self.target_url if self.target else "",
                "title": self.title,
                "text": self.text,
            }
        )

    @property
    def tags(self) -> tuple[str, ...]:
        return self.write.tags

    def open_at(self, now: float) -> bool:
        """Still waiting for a person at ``now``."""
        return self.status_at(now) is ApprovalStatus.PENDING

    def status_at(self, now: float) -> ApprovalStatus:
        """The status as a person sees it (a pending one past its time is expired)."""
        if self.status is ApprovalStatus.PENDING and now >= self.expires_at:
            return ApprovalStatus.EXPIRED
        return self.status

    def where(self) -> str:
        return self.write.where()

    def size(self) -> str:
        """The text's length as the platform counts it, of its limit ("212 of 300
        graphemes"): what its `validate` answered for this text (kept in `context`), or,
        in a row from before it was kept, the plain length, said to be ours."""
        try:
            n = Length.model_validate(self.context.get("length"))
        except ValidationError:
            return f"{len(self.text):,} characters, counted here (not by the platform)"
        of = f" of {n.max:,}" if n.max else ""  # 0: no limit
        return f"{n.used:,}{of} {UNITS.get(n.unit, n.unit)} as {self.platform} counts them"

    def said(self, now: float) -> str:
        """How it stands, in the past tense once decided: "approved by alice via console
        at T; sent (record 5)", "declined by …", "expired at …"."""
        state = self.status_at(now)
        if state is ApprovalStatus.PENDING:
            return f"waits for a person until {iso(self.expires_at)}"
        if state is ApprovalStatus.EXPIRED:
            return f"expired at {iso(self.expires_at)}: nobody decided in time; nothing was sent"
        verb = "approved" if state is ApprovalStatus.REFUSED else str(state)
        by = f"{verb} by {self.decided_by or 'a person'}"
        if self.channel:
            by += f" via {self.channel}"
        if self.decided_at:
            by += f" at {iso(self.decided_at)}"
        if state is ApprovalStatus.APPROVED:
            edited = ", edited" if self.edited else ""
            return f"{by}{edited}; sent" + (f" (record {self.record})" if self.record else "")
        if state is ApprovalStatus.DECLINED:
            return f"{by}; nothing was sent"
        return f"{by}, then refused when it ran; nothing was sent"

    def public(self, now: float) -> dict[str, Any]:
        """What `status`, `gwanjong://approvals` and `review list --json` show."""
        return {
            "id": self.id,
            "status": str(self.status_at(now)),
            "platform": self.platform,
            "action": self.action,
            # a new post's is where it goes, not the post it was drafted from
            "target": self.write.target_of(),
            "by": self.principal,
            "created_at": iso(self.created_at),
            "expires_at": iso(self.expires_at),
            "decided_by": self.decided_by,
            "channel": self.channel,
            "decided_at": iso(self.decided_at) if self.decided_at else "",
            "reason": self.reason,
            "edited": self.edited,
            "record": self.record,
            "sha256": self.digest,
            "said": self.said(now),
        }


@dataclass(frozen=True)
class ApprovalUse:
    """An approval being executed: consumed with the claim, in its transaction."""

    id: int
    digest: str  # what must be sent: the approved digest (or the person's edit's)
    by: str
    channel: Channel
    edited: bool = False
