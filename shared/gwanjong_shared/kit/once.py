"""A write leaves once: no layer of a platform server's HTTP stack sends it a second time.

Reads (GET, HEAD, OPTIONS) change nothing, so an SDK may resend one after a 5xx or a lost
connection. A write may not: once its request has left, a 5xx (a proxy in front of a
platform that applied it), a dropped connection or a timeout says nothing about whether it
was applied, and a resend can post it twice. So every server's HTTP hook (the shared
:class:`WriteOnce` transport for httpx, X's aiohttp middleware, Reddit's requestor) turns a
write's lost answer into :class:`AnswerLost`, an exception no SDK retries, before any retry
layer above it sees a status or an error it knows; the server then reports it with
:func:`lost_answer` as an unsure kind (:data:`~gwanjong_shared.contract.errors.UNSURE`),
which the gateway holds as unknown and reads back, and never as "nothing was written".
The server kit holds it too, for a model that calls the same write again: a repeat is read
back with :func:`find_written` and sent only once :data:`HOLD_S` have passed without it showing.

A write refused before it left (the connection never opened, a host not allowed) and a
write the platform answered (4xx) are outcomes, not lost answers: they pass through.
"""

from __future__ import annotations

import math
import re
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import httpx

from gwanjong_shared.contract import CommentList, PostList, errors
from gwanjong_shared.contract.errors import UNSURE, PlatformError
from gwanjong_shared.contract.models import Comment, Post
from gwanjong_shared.contract.untrusted import normalise, one_line
from gwanjong_shared.kit.http import wait_words
from gwanjong_shared.kit.ratelimit import retry_after_seconds

#: how long a server holds a write whose answer was lost: a repeat is not sent before (the
#: gateway's default settle window, within which a write that lands shows in reads)
HOLD_S = 120.0
#: how much of a written text (normalised) an item must hold to be that write
NEEDLE = 120
#: how far a platform's clock (or the one that stamped the write: Bluesky's createdAt is our
#: server's) may be behind the one that said when the write was sent: an NTP-synced host is
#: off by far less, a resumed VM or an unsynced laptop by a few minutes; and no recurring
#: title, nor a comment opening repeated under one post, comes back within ten minutes
SKEW_S = 600.0
#: the most comments, and search results, a read-back reads (one listing each). A listing
#: that comes back full may hold more beyond it, our write among them: then it cannot be
#: told absent. Only one shorter than asked was all there is (the contract's promise)
READ_COMMENTS = 1000
READ_POSTS = 50

#: the methods that change nothing: the only requests a layer may send again by itself
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def may_resend(method: str) -> bool:
    """True only for a request that changes nothing (a read)."""
    return method.upper() in SAFE_METHODS


class AnswerLost(Exception):
    """A write left, and its answer was lost: a 5xx, a dropped connection or a timeout."""

    def __init__(
        self,
        method: str,
        path: str,
        *,
        status: int | None = None,
        timed_out: bool = False,
        retry_after: float | None = None,  # the 5xx's Retry-After: how long it is down
    ) -> None:
        self.method = method.upper()
        self.path = path
        self.status = status
        self.timed_out = timed_out
        self.retry_after = retry_after
        super().__init__(f"{self.method} {path}: {self.why}")

    @property
    def why(self) -> str:
        if self.status is not None:
            return f"HTTP {self.status}"
        return "no answer in time" if self.timed_out else "the connection dropped"


#: httpx errors raised before a request left: nothing can have been written
HTTPX_NEVER_LEFT = (httpx.ConnectError, httpx.ConnectTimeout)


def answer_lost(
    method: str,
    path: str,
    *,
    status: int | None = None,
    error: BaseException | None = None,
    left: bool = True,
    headers: Mapping[str, str] | None = None,
) -> AnswerLost | None:
    """The rule in one place: a write (not a read) that ``left`` and got a 5xx ``status`` or
    an ``error`` instead of an answer lost its answer; anything else is an outcome."""
    if may_resend(method) or not left:
        return None
    if error is not None:
        timed_out = isinstance(error, (TimeoutError, httpx.TimeoutException))
        return AnswerLost(method, path, timed_out=timed_out)
    if status is not None and status >= 500:
        wait = retry_after_seconds(headers or {})
        return AnswerLost(method, path, status=status, retry_after=wait)
    return None


def lost_in(exc: BaseException) -> AnswerLost | None:
    """The AnswerLost an SDK may have wrapped (``__cause__``, ``__context__`` or
    asyncprawcore's ``original_exception``), if any."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        if isinstance(current, AnswerLost):
            return current
        seen.add(id(current))
        original = getattr(current, "original_exception", None)
        todo += [current.__cause__, current.__context__]
        if isinstance(original, BaseException):
            todo.append(original)
    return None


def _unsure(lead: str, timed_out: bool = False) -> PlatformError:
    """A write that may have landed: an unsure kind (timeout or unavailable), ``lead`` and
    then the same words for each way it happens, never "try again"."""
    message = (
        f"{lead}: it may have been written. It was not sent again; read it back before "
        "writing it anew."
    )
    return errors.timeout(message) if timed_out else errors.unavailable(message)


def lost_answer(label: str, lost: AnswerLost, what: str = "writing") -> PlatformError:
    """The error for a write whose answer was lost, worded so nobody reads it as "nothing
    was written"."""
    return _unsure(
        f"{label}'s answer was lost while {what} ({lost.why}), after the request had left",
        lost.timed_out,
    )


def unreadable_answer(label: str, what: str = "writing") -> PlatformError:
    """A write the platform answered with a body that could not be read (not JSON): it was
    applied or may have been, so it is unsure like a lost answer, never "try again"."""
    return _unsure(f"{label} answered while {what}, but its answer could not be read (not JSON)")


def unfinished_write(label: str, what: str, why: str, *, timed_out: bool) -> PlatformError:
    """A write cut off by a bound above the HTTP stack (the server's call bound) or failed
    with an SDK's own error: its request may have left, so it is unsure like a lost answer,
    never "try again"."""
    return _unsure(f"{label} did not finish {what} ({why})", timed_out)


def lost_sign_in(label: str, lost: AnswerLost) -> PlatformError:
    """A sign-in or token refresh whose answer was lost: it writes nothing, so it is an
    ordinary failure of its kind (a timeout stays a timeout), safe to try again."""
    message = f"{label} did not answer the sign-in ({lost.why}). {wait_words(lost.retry_after)}, then try again."
    return errors.timeout(message) if lost.timed_out else errors.unavailable(message)


class WriteOnce(httpx.AsyncBaseTransport):
    """httpx transport that sends every request once and raises :class:`AnswerLost` for a
    write's lost answer (the form for SDKs on httpx: Bluesky's atproto, X's twikit)."""

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        # retries=0: httpx's own retries only reconnect, but say it here.
        self.inner = inner or httpx.AsyncHTTPTransport(retries=0)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        method, path = request.method, request.url.path
        try:
            response = await self.inner.handle_async_request(request)
        except httpx.TransportError as exc:
            left = not isinstance(exc, HTTPX_NEVER_LEFT)
            lost = answer_lost(method, path, error=exc, left=left)
            if lost is None:
                raise
            raise lost from exc
        lost = answer_lost(method, path, status=response.status_code, headers=response.headers)
        if lost is not None:
            await response.aclose()
            raise lost
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


@asynccontextmanager
async def before_sending(label: str, action: str, what: str) -> AsyncGenerator[None]:
    """The reads a write makes before it sends (``what``: the checks they serve). One that
    fails unsure (unreachable, late) left nothing sent: the write fails as ``unsent``, not
    held as one that may have landed (a repeat read back, a gateway told it is unknown)."""
    try:
        yield
    except PlatformError as exc:
        if exc.kind not in UNSURE:
            raise
        raise errors.unavailable(
            f"{label} could not be read for the checks before {action} ({what}: "
            f"{one_line(exc.message, 300)}), so the write was not made: nothing was sent. "
            "Try again in a minute.",
            unsent=True,
        ) from None


def same_account(author: str, account: str) -> bool:
    return author.lower().lstrip("@") == account.lower().lstrip("@")


async def find_written(
    comments: Callable[[str, int], Awaitable[CommentList]],
    search: Callable[[str, int], Awaitable[PostList]],
    target: str | None,
    title: str,
    text: str,
    accounts: Iterable[str | None],
    since: float,
    most: tuple[int, int] = (READ_COMMENTS, READ_POSTS),
    parent: str | None = None,
) -> Comment | Post | None:
    """A write read back: the comment under ``target`` (None: a new post, searched for) by
    one of ``accounts``, holding the start of ``text`` (a post: or its ``title``) and
    published at or after ``since`` (epoch seconds: when the write was sent) less
    :data:`SKEW_S`: our earlier post with a recurring title is not this write, and when only
    such an earlier one shows, it raises (unavailable): the write's fate is a person's to
    tell. A comment must stand where it was sent: under ``parent`` (a comment's id; None or
    ``target``: the post itself); ours with the same words under another one raises too. An
    item whose time is missing or unreadable counts (better never twice than never lost).
    Absent (None) only when what was read covered it: a listing shorter than
    ``most`` (comments, search results) asked, with nothing said to lie beyond it (``more``:
    branches or pages left unread); a full one, or no account known (anyone's post with the
    same words would match), raises (unavailable) too."""
    what = "post" if target is None else "comment"
    ours = [a for a in accounts if a]
    if not ours:
        raise _untold(f"No account of ours is known, so whose {what} with these words is unsaid")
    needle = normalise(text)[:NEEDLE]
    read: list[Comment] | list[Post]
    beyond = False  # what was read says more lies beyond it
    if target is not None:
        limit = most[0]
        listed = await comments(target, limit)
        read, beyond = listed.comments, listed.more
        found = [c for c in read if needle and needle in normalise(c.body)]
    else:
        limit, wanted = most[1], normalise(title)
        listed = await search(title or _words(text, 60), limit)
        read, beyond = listed.posts, listed.more
        found = [
            p
            for p in read
            if needle in normalise(p.body) or (wanted and wanted == normalise(p.title))
        ]
    mine = [i for i in found if any(same_account(i.author, a) for a in ours)]
    under = None if parent == target else parent
    elsewhere = [i for i in mine if isinstance(i, Comment) and (i.parent_id or None) != under]
    mine = [i for i in mine if i not in elsewhere]
    fresh = next((i for i in mine if _published(i.published_at) >= since - SKEW_S), None)
    if fresh is None and elsewhere:
        # The same words of ours under another comment (or the post): a reply sent there,
        # or this one in an id's other spelling. Found could lose it, absent send it twice.
        raise _untold(
            f"Only a comment of ours with these words under another "
            f"{'comment' if elsewhere[0].parent_id else 'post'} shows, none under the one replied to"
        )
    if fresh is None and mine:
        # Only an earlier one of ours: a recurring title, or this very write under a platform
        # clock far behind ours. Absent could send it twice, found could lose it: neither.
        raise _untold(
            f"Only an earlier {what} of ours with these words shows (published "
            f"{one_line(str(mine[0].published_at), 40)}), none since this write was sent"
        )
    if fresh is None and (beyond or len(read) >= limit):
        # A full listing (a busy thread, a search filled by others), or one that left
        # branches or pages unread (Reddit's "more" stubs, a search cut short): ours may
        # lie beyond it.
        where = "comments under the post" if target else "search results for its words"
        raise _untold(f"None of ours is among the first {len(read)} {where}, and more may follow")
    return fresh


def _untold(why: str) -> PlatformError:
    """Neither found (it could be lost) nor absent (it could be sent twice): ``why``."""
    return errors.unavailable(
        f"{why}: whether this write landed cannot be told from the platform. It was not sent "
        "again; a person must check the account's posts."
    )


def holding(query: str, posts: Iterable[Post]) -> list[Post]:
    """Those of ``posts`` (our own newest) that hold every word of ``query``: put first in a
    search whose index lists a new post of ours late, low or never, since an unsure post is
    read back by its words (:func:`find_written`)."""
    words = query.lower().split()
    return [p for p in posts if all(w in f"{p.title}\n{p.body}".lower() for w in words)]


def each_once(posts: Iterable[Post], limit: int) -> list[Post]:
    """``posts`` with each post once, in its first place (ours, then the search's), at most
    ``limit``."""
    unique: dict[str, Post] = {}
    for post in posts:
        unique.setdefault(post.id, post)
    return list(unique.values())[:limit]


def _published(when: str | None) -> float:
    """Epoch seconds of a platform's ISO 8601 time ("Z", an offset, none: UTC; any
    fraction); missing or unreadable: infinitely late, so it counts as found."""
    try:
        moment = datetime.fromisoformat(when or "")
    except ValueError:
        return math.inf
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def _words(text: str, most: int) -> str:
    """The first whole words of ``text``, at most ``most`` characters, as a search query:
    a platform's search may match whole words only, and read punctuation, OR and a leading
    '-' as its syntax."""
    query = ""
    for word in re.findall(r"\w+", text):
        if word in ("OR", "AND"):
            continue
        if len(query) + len(word) + 1 > most:
            break
        query = f"{query} {word}".lstrip()
    return query or text[:most]  # no word at all (emoji only): the text as it is
