"""A server's hold on a write whose answer was lost: a model's repeat of it is read back,
not sent (kit/once.py says why a lost answer is unsure).

The hold is a note of each write under way or unsure, keyed by all it sends (a hash: no
text is kept), with when it was sent (epoch seconds). A repeat while the first is under way
in this process is refused; otherwise a held repeat is read back (`once.find_written`) and
answered with the write found, refused as unsure until `once.HOLD_S` has passed, and sent
again only after that, still not found (never when the read-back could not tell: it saw
only part of a listing). The note is kept in a small SQLite file
(:class:`HoldFile`) that every process of the server shares and a restart keeps: a write
under way when its process died may have landed, so it is read back like a lost answer.
An action whose resend the platform answers with the first (`PlatformAdapter.resends_safely`)
is not held.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from collections.abc import Awaitable, Callable, Generator
from pathlib import Path
from typing import Any

from gwanjong_shared.contract import Action, errors
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.contract.models import Comment, Post, PostResult
from gwanjong_shared.kit.adapter import PlatformAdapter
from gwanjong_shared.kit.once import HOLD_S, find_written

#: the most writes remembered (the oldest is forgotten first)
MOST = 1000


class HoldFile:
    """When each held write was sent or lost (epoch seconds), by key: in the SQLite file
    ``path`` (``None``: in this process alone). Each call is one short transaction on its
    own connection, so two processes of a server (two clients) wait on each other's lock
    (the busy timeout) and never both take one write."""

    def __init__(self, path: Path | None, setting: str = "HOLD_FILE") -> None:
        self.path, self.setting, self.memory = path, setting, dict[str, float]()

    def take(self, key: str, now: float, was: float | None = None) -> float | None:
        """Hold ``key`` from ``now`` if it is not held, or held since ``was``: None. Else
        since when it is held (for a read-back first)."""
        if self.path is None:
            if (at := self.memory.get(key)) is not None and at != was:
                return at
            self.hold(key, now)
            return None
        with self._db() as db:
            taken = db.execute(
                "INSERT INTO held VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET at = excluded.at"
                " WHERE held.at = ?",
                (key, now, was),
            ).rowcount
            if not taken:
                return db.execute("SELECT at FROM held WHERE key = ?", (key,)).fetchone()[0]
            db.execute(
                "DELETE FROM held WHERE key NOT IN (SELECT key FROM held ORDER BY at DESC LIMIT ?)",
                (MOST,),
            )
            return None

    def hold(self, key: str, at: float | None) -> None:
        """``key`` held since ``at`` (its answer lost then), or no longer (``None``)."""
        if self.path is None:
            self.memory.pop(key, None)
            if at is not None:
                self.memory[key] = at  # the newest last
                if len(self.memory) > MOST:
                    del self.memory[next(iter(self.memory))]
            return
        with self._db() as db:
            if at is None:
                db.execute("DELETE FROM held WHERE key = ?", (key,))
            else:
                db.execute("INSERT OR REPLACE INTO held VALUES (?, ?)", (key, at))

    @contextlib.contextmanager
    def _db(self) -> Generator[sqlite3.Connection, None, None]:
        assert self.path is not None
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            # the default rollback journal: no -wal/-shm files, and a few rows per transaction
            with contextlib.closing(sqlite3.connect(self.path, timeout=10)) as db, db:
                db.execute("CREATE TABLE IF NOT EXISTS held (key TEXT PRIMARY KEY, at REAL)")
                yield db
        except (sqlite3.Error, OSError) as exc:
            raise errors.unavailable(
                f"The write hold file {self.path} could not be used ({type(exc).__name__}: "
                f"{exc}); nothing was sent. Make its folder writable, or set {self.setting} "
                "to a file that can be.",
                unsent=True,
            ) from None


class WriteHold:
    """``guarded``: the server's bound on a call (kit/server.py); ``wall``: epoch seconds,
    for how long a write is held (a monotonic clock does not survive a restart) and what a
    read-back counts (only what was published since the write was sent)."""

    def __init__(
        self,
        adapter: PlatformAdapter,
        guarded: Callable[..., Awaitable[Any]],
        call_timeout_s: float,
        wall: Callable[[], float],
        held: HoldFile,
    ) -> None:
        self.adapter, self.guarded, self.call_timeout_s = adapter, guarded, call_timeout_s
        self.wall, self.held = wall, held
        #: the writes this process sends or reads back now
        self.busy: set[str] = set()

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
        if action in self.adapter.resends_safely:
            return await self.guarded(send(), what, write=True)
        key = hashlib.sha256(json.dumps([action, target, body, title, *more]).encode()).hexdigest()
        if key in self.busy:
            raise errors.unavailable(
                f"The same {action} is under way now; it was not sent again. Wait for its "
                "answer, then read it back.",
                unsent=True,
            )
        self.busy.add(key)  # one at a time here: a repeat meanwhile is refused
        try:
            was = None
            while (at := self.held.take(key, self.wall(), was)) is not None:
                found = await self._read_back(action, target, body, title, at, *more)
                if found is not None:
                    with contextlib.suppress(PlatformError):  # else found again next time
                        self.held.hold(key, None)
                    return found
                was = at  # HOLD_S passed: sent, unless another process took it meanwhile
            unsure = True  # held as under way: a process that dies now leaves it unsure
            try:
                result: PostResult = await self.guarded(send(), what, write=True)
                unsure = False
                return result
            except PlatformError as exc:
                unsure = exc.unsure
                raise
            finally:  # a cancelled call may have landed too
                with contextlib.suppress(PlatformError):  # then it stays held as under way
                    self.held.hold(key, self.wall() if unsure else None)
        finally:
            self.busy.discard(key)

    async def _read_back(
        self, action: Action, target: str | None, body: str, title: str, at: float, *more: object
    ) -> PostResult | None:
        """A held write (sent or lost ``at``) as found on the platform, or None once HOLD_S
        passed without it showing; before that, an unsure refusal. ``more``: a reply's
        parent, under which it must stand."""
        adapter = self.adapter
        age = max(0.0, self.wall() - at)  # a clock set back holds it longer

        async def look() -> Post | Comment | None:
            where = target if action == "write_comment" else None
            ours = [await adapter.account()]
            # its call lasted call_timeout_s at most; a clock set back since counts from now
            sent = min(at, self.wall()) - self.call_timeout_s
            parent = str(more[0]) if where and more and more[0] else None
            return await find_written(
                adapter.comment_list,
                adapter.search_list,
                where,
                title,
                body,
                ours,
                sent,
                parent=parent,
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
