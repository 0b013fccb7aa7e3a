"""What a person may be told about: the event model, and one message from a batch of
events. Light (no Apprise, no record): a producer (the watcher, the record scan in
`notifier`) builds `Event`s and hands them to `Notifier.publish`. A message has a line per
kind with its count, what is oldest and on which platforms, and the console pages to open:
names and counts only, no platform text (a post's body is untrusted and would land in
another app), no sign-in link (a message in a shared channel must sign no one in)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from gwanjong_gateway.config.away import EventKind as EventKind  # its words are here
from gwanjong_shared.contract.models import Frozen

#: how a kind reads in a message ("3 approvals waiting") and the console page of what waits
#: (a page, never a sign-in link)
TOLD: dict[EventKind, tuple[str, str]] = {
    EventKind.APPROVAL_WAITING: ("approvals waiting", "/approvals"),
    EventKind.APPROVAL_EXPIRING: ("approvals about to expire", "/approvals"),
    EventKind.APPROVAL_EXPIRED: ("approvals expired before you were told", "/approvals"),
    EventKind.HANDOFF_WAITING: ("hand-offs waiting to be posted", "/handoffs"),
    EventKind.HANDOFF_EXPIRED: (
        "hand-offs expired before you were told",
        "/history?status=expired",
    ),
    EventKind.UNSURE_WAITING: ("unsure writes for you to settle", "/history?status=unknown"),
    EventKind.SUMMONED: ("new mentions or replies", "/inbox"),
    EventKind.TOPIC_POST: ("new posts on your saved topics", "/inbox"),
    EventKind.WRITES_PAUSED: ("platforms with writes paused", "/usage"),
    EventKind.SPEND_NEAR_CAP: ("platforms near their daily spending cap", "/usage"),
    EventKind.PLATFORM_DOWN: ("platforms down", "/usage"),
}

#: kinds told only after the fact, where the waiting they end was never told: the kind
#: of that waiting (what is told once, and no longer waits)
LATE: dict[EventKind, EventKind] = {
    EventKind.APPROVAL_EXPIRED: EventKind.APPROVAL_WAITING,
    EventKind.HANDOFF_EXPIRED: EventKind.HANDOFF_WAITING,
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


@dataclass(frozen=True)
class Message:
    key: str  # the period's notice key
    title: str
    body: str
    summary: str  # the counts, one line: what status shows
    told: tuple[str, ...] = ()  # its events' notice keys


def ago(seconds: float) -> str:
    s = max(0, int(seconds))
    if s < 90:
        return f"{s} s"
    if s < 90 * 60:
        return f"{s // 60} min"
    if s < 48 * 3600:
        return f"{s // 3600} h"
    return f"{s // 86400} days"


def compose(key: str, events: list[Event], now: float, base_url: str) -> Message:
    by_kind: dict[EventKind, list[Event]] = {}
    for event in events:
        by_kind.setdefault(event.kind, []).append(event)
    lines: list[str] = []
    counts: list[str] = []
    pages: list[str] = []
    for kind in EventKind:  # a fixed order, so messages read alike
        found = by_kind.get(kind)
        if not found:
            continue
        oldest = min(e.at for e in found)
        platforms = sorted({e.platform for e in found if e.platform})
        on = f" on {', '.join(platforms)}" if platforms else ""
        label, page = TOLD[kind]
        lines.append(f"{len(found)} {label}{on} (oldest {ago(now - oldest)} ago)")
        counts.append(f"{len(found)} {label}")
        if page not in pages:
            pages.append(page)
    if base_url:
        lines += ["", *(f"Open {base_url}{page}" for page in pages)]
    else:
        lines += ["", "Open them with `gwanjong console` (pages: " + ", ".join(pages) + ")"]
    # an approval waiting and about to expire is one thing (kinds apart by their first
    # word); one that expired waits no more: the title then says what happened
    total = len({(e.kind.split("_")[0], e.key) for e in events if e.kind not in LATE})
    title = f"gwanjong: {total} {'thing waits' if total == 1 else 'things wait'} for you"
    if not total:
        title = f"gwanjong: {counts[0]}"
    told = tuple(e.notice_key for e in events)
    return Message(key, title, "\n".join(lines), "; ".join(counts), told)
