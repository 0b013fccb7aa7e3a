"""An inbox that loses nothing: read back to the cursor, hand out the oldest unseen first.

Every platform pages its notifications newest first. Cutting the newest ``limit`` items and
moving the cursor past everything read puts the older ones behind the cursor for good
(issue 21). So a server reads back, page by page, until it reaches the cursor (or the feed
ends), hands out the *oldest* ``limit`` unseen items, and moves the cursor to the newest
item it handed out: the rest come back on the next call.

The reading is bounded (:data:`MAX_PAGES` per call) and stops on a cursor the platform
repeats. When the bound is hit before the cursor is reached, nothing can be handed out in
order yet (the unread pages hold older items): the answer then lists nothing, says
``more``, and its ``next_since`` carries the platform's page cursor, so the next call goes
on reading from there (the last page read is read again: the oldest unseen items may be
on it) instead of starting over. A first poll (no ``since``) reads one
bounded window and starts the inbox at the oldest item in it: what lies deeper is before
the inbox began, not something a later poll would list either.

A cursor is ``<key>`` or ``<key>|<page cursor>``; each platform spells its key (a time
and an id, so items sharing a second are neither lost nor repeated) and checks it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Generic, TypeVar

from gwanjong_shared.contract import MentionList, errors
from gwanjong_shared.contract.models import Post

log = logging.getLogger(__name__)
T = TypeVar("T")

#: pages read per call at most: 10 pages of 100 is Reddit's whole listing and more than
#: X's mention timeline keeps (800), so only a Bluesky backlog can go deeper (and resumes)
MAX_PAGES = 10
#: the platform's page cursor inside ours: what a platform cursor may be made of
_RESUME_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:._-+=/")

#: (when, id): ``when`` a fixed-width text that sorts as time does, ``id`` a tie-breaker
Key = tuple[str, str]
#: after every id, for a cursor that only names a time (the cursors servers handed out
#: before keys had an id): everything at that time was seen
LAST = "\U0010ffff"


@dataclass(frozen=True)
class Cursor:
    seen: Key | None  # the newest item handed out; None on a first poll
    resume: str | None = None  # the platform's cursor to go on reading older pages from


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page as read: the summons on it (keyed), the platform's cursor to the next
    (older) page, and the oldest key of anything on the page, summons or not (so a page of
    likes still tells how far back the reading got)."""

    items: list[tuple[Key, T]]
    next: str | None
    oldest: Key | None


@dataclass
class Back(Generic[T]):
    """What a read back found newer than the cursor, and where it stopped."""

    found: dict[Key, T] = field(default_factory=lambda: {})
    #: the platform's cursor of the first page not read (the page bound was hit)
    resume: str | None = None


def iso_key(value: str) -> str:
    """An ISO 8601 time as fixed-width UTC text with microseconds, so that text order is
    time order whatever precision the platform wrote ("…20.710Z" and "…20.710330Z")."""
    when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def key_text(key: Key) -> str:
    """``<when>,<id>``, or the bare time for a key read from a time-only cursor."""
    return key[0] if key[1] == LAST else f"{key[0]},{key[1]}"


def parse_cursor(
    since: str | None,
    parse_key: Callable[[str], Key | None],
    example: str,
    resumable: bool = True,
) -> Cursor:
    """``since`` as a Cursor; a malformed one is ``invalid_input`` saying what a valid one
    looks like (a bogus cursor must not hide every item). ``resumable=False``: a platform
    whose every call reads the same bounded set never hands out a resume part."""
    if since is None:
        return Cursor(None)
    text, _, resume = since.partition("|")
    key = parse_key(text)
    if (
        key is None
        or (resume and (not resumable or not set(resume) <= _RESUME_CHARS))
        or since.endswith("|")
    ):
        raise errors.invalid_input(
            f"since must be the next_since of an earlier mentions call (like {example!r}), "
            f"or omitted for the first call; got {since!r}."
        )
    return Cursor(key, resume or None)


def encode(key_text: str, resume: str | None) -> str:
    return f"{key_text}|{resume}" if resume else key_text


async def read_back(
    fetch: Callable[[str | None], Awaitable[Page[T]]],
    cursor: Cursor,
    *,
    stop_at_seen: bool = True,
    max_pages: int = MAX_PAGES,
) -> Back[T]:
    """Page back from the newest (or from ``cursor.resume``) until a page reaches back past
    the cursor, the feed ends, the platform repeats a cursor, or ``max_pages`` were read.

    ``stop_at_seen=False`` for a platform that filters by the cursor itself (X's
    ``since_id``): its pages end where the cursor is."""
    if cursor.resume is None:
        return await _walk(fetch, cursor, None, None, stop_at_seen, max_pages)
    try:
        back = await _walk(fetch, cursor, cursor.resume, None, stop_at_seen, max_pages)
    except errors.PlatformError as refused:
        if refused.kind is not errors.ErrorKind.INVALID_INPUT:
            raise
        # The platform no longer takes its page cursor (X's expire): a read from the newest
        # hands out nothing it would not have, and pages on with a fresh one.
        log.warning("the platform refused its own page cursor; reading from the newest")
        return await _walk(fetch, cursor, None, None, stop_at_seen, max_pages)
    if back.resume is None and not back.found:
        # Nothing unseen below the resume point: the unseen items are all above it, so a
        # read from the newest that gets down to that point joins up with the cursor.
        return await _walk(fetch, cursor, None, cursor.resume, stop_at_seen, max_pages)
    return back


async def _walk(
    fetch: Callable[[str | None], Awaitable[Page[T]]],
    cursor: Cursor,
    start: str | None,
    joins: str | None,
    stop_at_seen: bool,
    max_pages: int,
) -> Back[T]:
    back: Back[T] = Back()
    token = last = start
    asked: set[str | None] = {token}
    for _ in range(max_pages):
        page = await fetch(token)
        for key, value in page.items:
            if cursor.seen is None or key > cursor.seen:
                back.found.setdefault(key, value)
        # Strictly older than the cursor's time: items sharing that time may still follow.
        reached = (
            stop_at_seen
            and cursor.seen is not None
            and page.oldest is not None
            and page.oldest[0] < cursor.seen[0]
        )
        # An empty page that names a next one is not the end (Bluesky drops muted accounts'
        # notifications after paging): only the platform's cursor says the feed ended.
        if reached or page.next is None or page.next == joins:
            return back
        if page.next in asked:
            log.warning("the platform repeated a page cursor; stopping the read there")
            return back
        asked.add(page.next)
        last, token = token, page.next
    # Resume at the last page read, not after it: that page is read again next time, so
    # the oldest unseen items on it are still there to hand out when the cursor is reached.
    back.resume = last if last is not None else token
    return back


def hand_out(
    back: Back[Post], cursor: Cursor, limit: int, key_text: Callable[[Key], str]
) -> MentionList:
    """The oldest ``limit`` unseen posts, oldest first; ``next_since`` the newest of them."""
    if back.resume is not None and cursor.seen is not None:
        # The cursor is still unread pages away: what was found is newer than what those
        # pages hold, so handing it out now would put them behind the cursor.
        log.info("inbox backlog deeper than %d pages; resuming next call", MAX_PAGES)
        return MentionList(
            posts=[], next_since=encode(key_text(cursor.seen), back.resume), more=True
        )
    ordered = sorted(back.found.items())
    chosen = ordered[:limit]
    # After a resumed read, newer items (read on earlier calls) are still above the cursor.
    more = len(ordered) > limit or cursor.resume is not None
    if chosen:
        # What is left below the resume point is still all there: go on from it next time.
        rest_below = cursor.resume if len(ordered) > limit else None
        next_since = encode(key_text(chosen[-1][0]), rest_below)
    else:
        next_since = key_text(cursor.seen) if cursor.seen is not None else ""
    return MentionList(posts=[post for _key, post in chosen], next_since=next_since, more=more)
