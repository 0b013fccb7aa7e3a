"""One message from a batch of events: a line per kind with its count, what is oldest and
on which platforms, and the console pages to open. Names and counts only: no platform
text (a post's body is untrusted and would land in another app), no sign-in link (a
message in a shared channel must sign no one in)."""

from __future__ import annotations

from dataclasses import dataclass

from gwanjong_gateway.notify.events import LABELS, PAGES, Event, EventKind


@dataclass(frozen=True)
class Message:
    key: str  # the period's notice key
    title: str
    body: str
    summary: str  # the counts, one line: what status shows


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
        lines.append(f"{len(found)} {LABELS[kind]}{on} (oldest {ago(now - oldest)} ago)")
        counts.append(f"{len(found)} {LABELS[kind]}")
        if PAGES[kind] not in pages:
            pages.append(PAGES[kind])
    if base_url:
        lines += ["", *(f"Open {base_url}{page}" for page in pages)]
    else:
        lines += ["", "Open them with `gwanjong console` (pages: " + ", ".join(pages) + ")"]
    total = len(events)
    title = f"gwanjong: {total} {'thing waits' if total == 1 else 'things wait'} for you"
    return Message(key, title, "\n".join(lines), "; ".join(counts))
