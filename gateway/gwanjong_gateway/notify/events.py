"""What a person may be told about: the event model. Light (no Apprise, no record): the
config validates `[notify] events` against `EventKind`, and a producer (the watcher, the
record scan in `notifier`) builds `Event`s and hands them to `Notifier.publish`."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from gwanjong_shared.contract.models import Frozen


class EventKind(StrEnum):
    APPROVAL_WAITING = "approval_waiting"
    APPROVAL_EXPIRING = "approval_expiring"
    HANDOFF_WAITING = "handoff_waiting"
    SUMMONED = "summoned"
    TOPIC_POST = "topic_post"
    WRITES_PAUSED = "writes_paused"
    SPEND_NEAR_CAP = "spend_near_cap"
    PLATFORM_DOWN = "platform_down"


#: the console page of what waits, per kind (a page, never a sign-in link)
PAGES: dict[EventKind, str] = {
    EventKind.APPROVAL_WAITING: "/approvals",
    EventKind.APPROVAL_EXPIRING: "/approvals",
    EventKind.HANDOFF_WAITING: "/handoffs",
    EventKind.SUMMONED: "/inbox",
    EventKind.TOPIC_POST: "/inbox",
    EventKind.WRITES_PAUSED: "/usage",
    EventKind.SPEND_NEAR_CAP: "/usage",
    EventKind.PLATFORM_DOWN: "/usage",
}

#: how a kind reads in a message: one line per kind, "3 approvals waiting"
LABELS: dict[EventKind, str] = {
    EventKind.APPROVAL_WAITING: "approvals waiting",
    EventKind.APPROVAL_EXPIRING: "approvals about to expire",
    EventKind.HANDOFF_WAITING: "hand-offs waiting to be posted",
    EventKind.SUMMONED: "new mentions or replies",
    EventKind.TOPIC_POST: "new posts on your saved topics",
    EventKind.WRITES_PAUSED: "platforms with writes paused",
    EventKind.SPEND_NEAR_CAP: "platforms near their daily spending cap",
    EventKind.PLATFORM_DOWN: "platforms down",
}


class Event(Frozen):
    """One thing that waits. ``key`` names it for good (the same approval is the same
    key in every replica and after a restart): it is told once. No platform text here:
    a post's body never belongs in a notification (it is untrusted, and lands in
    another app)."""

    kind: EventKind
    #: stable within its kind: "a12" (approval 12), "h7", "bluesky:post-id", "twitter"
    key: str = Field(min_length=1, max_length=300)
    #: the platform's name ("" when none)
    platform: str = Field(default="", max_length=40)
    #: when it began (epoch seconds): the message says what is oldest
    at: float
    #: the person caused it themselves (their own approve or decline): never sent
    by_person: bool = False

    @property
    def notice_key(self) -> str:
        return f"{self.kind}:{self.key}"
