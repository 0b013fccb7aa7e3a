"""A server's hold on a write whose answer was lost: a model's repeat of it is read back,
not sent (kit/once.py says why a lost answer is unsure).

The hold is this process's memory of each write under way or unsure, keyed by all it
sends. A repeat while the first is under way is refused; after a lost answer it is read
back (`once.find_written`) and answered with the write found, refused as unsure until
`once.HOLD_S` has passed, and sent again only after that, still not found (never when the
read-back could not tell: it saw only part of a listing). A platform that
answers a resend with the first (`PlatformAdapter.resends_safely`) is not held.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from gwanjong_shared.contract import Action, errors
from gwanjong_shared.contract.errors import UNSURE, PlatformError
from gwanjong_shared.contract.models import Comment, Post, PostResult
from gwanjong_shared.kit.adapter import PlatformAdapter
from gwanjong_shared.kit.once import HOLD_S, find_written

#: the most writes remembered (the oldest is forgotten first)
MOST = 1000


class WriteHold:
    """``guarded``: the server's bound on a call (kit/server.py); ``clock``: monotonic
    seconds, for how long a write is held; ``wall``: epoch seconds, for what a read-back
    counts (only what was published since the write was sent)."""

    def __init__(
        self,
        adapter: PlatformAdapter,
        guarded: Callable[..., Awaitable[Any]],
        call_timeout_s: float,
        clock: Callable[[], float],
        wall: Callable[[], float],
    ) -> None:
        self.adapter, self.guarded, self.call_timeout_s = adapter, guarded, call_timeout_s
        self.clock, self.wall = clock, wall
        #: by key: None while under way, else when its answer was lost (``clock``)
        self.held: dict[str, float | None] = {}

    async def send(
        self,
        action: Action,
        what: str,
        send: Callable[[], Awaitable[PostResult]],
        target: str | None,
        body: str = "",
        title: str = "",
        *more: object,
    ) -> PostResult:
        """``send()`` the write of ``action`` once, unless a repeat of it is found or held."""
        held = self.held
        key = hashlib.sha256(json.dumps([action, target, body, title, *more]).encode()).hexdigest()
        if key in held and not self.adapter.resends_safely:
            if (at := held[key]) is None:
                raise errors.unavailable(
                    f"The same {action} is under way now; it was not sent again. Wait for its "
                    "answer, then read it back."
                )
            held[key] = None  # read back by one repeat at a time
            try:
                found = await self._read_back(action, target, body, title, self.clock() - at)
            except BaseException:
                held[key] = at
                raise
            if found is not None:
                del held[key]
                return found
        held[key], unsure = None, True  # under way: a repeat meanwhile is refused
        try:
            result: PostResult = await self.guarded(send(), what, write=True)
            unsure = False
            return result
        except PlatformError as exc:
            unsure = exc.kind in UNSURE
            raise
        finally:  # a cancelled call may have landed too
            held.pop(key, None)
            if unsure:
                held[key] = self.clock()
                if len(held) > MOST:
                    del held[next(iter(held))]

    async def _read_back(
        self, action: Action, target: str | None, body: str, title: str, age: float
    ) -> PostResult | None:
        """A held write as found on the platform, or None once HOLD_S passed without it
        showing; before that, an unsure refusal."""
        adapter = self.adapter

        async def look() -> Post | Comment | None:
            where = target if action == "write_comment" else None
            ours = [await adapter.account()]
            sent = self.wall() - age - self.call_timeout_s  # its call lasted that long at most
            return await find_written(
                adapter.get_comments, adapter.search, where, title, body, ours, sent
            )

        found, seen = None, ""
        try:
            if action != "upvote":
                found, seen = await self.guarded(look(), "reading it back"), " (not there just now)"
        except PlatformError:
            if age >= HOLD_S:
                raise
        if found is not None:
            url = found.url or None
            return PostResult(
                ok=True, platform=adapter.platform, action=action, id=found.id, url=url
            )
        if age < HOLD_S:
            how = "get_post" if action == "upvote" else "get_comments" if target else "search"
            raise errors.unavailable(
                f"The same {action} was sent {age:.0f} s ago and its answer was lost: it may "
                f"have been written. It was not sent again; read it back with {how}{seen}. It is "
                f"sent again only if still not found in {HOLD_S - age:.0f} s."
            )
        return None
