"""The write journal (docs/operate/durability.md): `<state_dir>/journal.jsonl`, one fsync'd
line per event, ``sending`` before the platform is called and ``recorded`` after. `replay`
puts a ``sending`` without its ``recorded`` back as `unknown`. A write is never sent
without a durable trace; several gateways take turns (a lock on `journal.lock`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from pydantic import BaseModel, ConfigDict, ValidationError

from gwanjong_gateway.paths import (
    Trouble,
    disk_trouble,
    exclusive_lock,
    private_dir,
    replace_private,
)
from gwanjong_gateway.record.records import Records, unavailable
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import UNSETTLED, ClaimRequest, Strike, StrikeStatus

log = logging.getLogger(__name__)

JOURNAL = "journal.jsonl"
#: past this size the journal is rewritten with only its open entries
COMPACT_BYTES = 256 * 1024


class Event(StrEnum):
    SENDING = "sending"
    RECORDED = "recorded"


class Sent(BaseModel):
    """A ``sending`` line: the claimed row, enough to put it back into any record."""

    model_config = ConfigDict(extra="ignore")

    event: Event = Event.SENDING
    id: int
    intent_key: str
    platform: str
    target: str
    action: str
    content_hash: str
    content: str = ""  # what reading back looks for (public text, never a secret)
    title: str = ""
    target_url: str = ""
    author: str = ""
    opportunity: str = ""
    mode: str = ""
    approver: str = ""
    principal: str = ""
    account: str = ""  # whom it went out as: reading back looks for that account's write
    at: float  # the claim's time (the row's created_at)
    trace_id: str = ""  # the strike's trace context, for the settle span's link
    span_id: str = ""

    @classmethod
    def of(cls, row: Strike) -> Sent:
        return cls.model_validate({**vars(row), "action": str(row.action), "at": row.created_at})

    def matches(self, row: Strike | None) -> bool:
        """``row`` is this write's own row (ids are reused by a new record)."""
        return (
            row is not None and row.intent_key == self.intent_key and row.platform == self.platform
        )

    def row(self, reason: str) -> dict[str, Any]:
        """The `unknown` row that puts this write back into a record."""
        return self.model_dump(exclude={"event", "id", "at"}) | {
            "mode": self.mode or "live",
            "status": StrikeStatus.UNKNOWN,
            "reason": reason,
            "policy": [f"journal: sent as record {self.id}", "outcome unknown"],
            "created_at": self.at,
        }


def restore(store: StrikeStore, entry: Sent, now: float) -> Strike | None:
    """Put a journalled write back into ``store`` as `unknown` (a missing row is inserted,
    unless an earlier one holds its target); the row that now holds it (None: settled)."""
    own = store.get(entry.id)
    if entry.matches(own):
        assert own is not None
        if own.status == StrikeStatus.PENDING:
            why = "outcome unknown: sent, but the gateway stopped before recording it (journal)"
            return store.settle(own.id, StrikeStatus.UNKNOWN, reason=why, now=now) or own
        return own if own.status in UNSETTLED else None
    when = time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(entry.at))
    reason = (
        f"outcome unknown: sent at {when} as record {entry.id}, which the record lost "
        "(restored from the write journal); read back until settled"
    )
    # The claim's own transaction: it inserts only if nothing holds the target already.
    req = ClaimRequest(row=entry.row(reason), live=False, cap=None, interval_s=0, cooldown_days=0)
    verdict = store.decide(req, entry.at, insert=True)
    return verdict.row or verdict.earlier


def replay_into(store: StrikeStore, entries: list[Sent], now: float) -> tuple[set[int], int]:
    """`restore` each open entry: the entries now closed (settled, or held by another row),
    and how many of their writes are still unsure."""
    closed: set[int] = set()
    unsettled = 0
    for entry in entries:
        held = restore(store, entry, now)
        if held is None or not entry.matches(held) or held.id != entry.id:
            closed.add(entry.id)
        unsettled += held is not None and held.status in UNSETTLED
    return closed, unsettled


def _last_byte(fd: int) -> bytes:
    os.lseek(fd, -1, os.SEEK_END)
    return os.read(fd, 1)


class Journal:
    """The write journal of one state_dir (see the module doc)."""

    def __init__(self, folder: Path, compact_bytes: int = COMPACT_BYTES) -> None:
        self.path = folder / JOURNAL
        self.compact_bytes = compact_bytes
        self._lock = threading.Lock()  # this process's threads; journal.lock: other processes

    # -- writing (worker threads) --------------------------------------------------------

    def _append(self, line: dict[str, Any]) -> None:
        data = (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        private_dir(self.path.parent)
        with self._lock, exclusive_lock(self.path.with_suffix(".lock")):
            # O_BINARY: Windows would write each "\n" as "\r\n"; no os.pread there either
            flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0)
            fd = os.open(self.path, flags, 0o600)
            try:
                if os.fstat(fd).st_size and _last_byte(fd) != b"\n":  # a line a crash tore
                    data = b"\n" + data
                written = os.write(fd, data)
                if written != len(data):  # a short write on a full disk: no half line stays
                    os.ftruncate(fd, os.fstat(fd).st_size - written)
                    raise OSError(28, "No space left on device (short write)")
                os.fsync(fd)
            finally:
                os.close(fd)

    def append_sending(self, row: Strike) -> None:
        """Raises OSError when the trace cannot be made durable."""
        self._append(Sent.of(row).model_dump(mode="json"))

    def append_recorded(self, strike_id: int) -> None:
        self._append({"event": Event.RECORDED, "id": strike_id})
        with contextlib.suppress(OSError):
            if self.path.stat().st_size > self.compact_bytes:
                self.compact(set())

    # -- reading -------------------------------------------------------------------------

    def open_entries(self) -> list[Sent]:
        """Every ``sending`` without its ``recorded``, oldest first (a torn last line, from
        a crash mid-append, is skipped)."""
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return []
        open_: dict[int, Sent] = {}
        for line in text.splitlines():
            try:
                data = json.loads(line)
                if data.get("event") == Event.RECORDED:
                    open_.pop(int(data["id"]), None)
                elif data.get("event") == Event.SENDING:
                    entry = Sent.model_validate(data)
                    open_[entry.id] = entry
            except (ValueError, KeyError, TypeError, AttributeError, ValidationError):
                log.warning("write journal %s: skipped an unreadable line", self.path)
        return list(open_.values())

    def compact(self, closed: set[int]) -> None:
        """Rewrite the journal with only its open entries (less ``closed``), atomically."""
        with self._lock, exclusive_lock(self.path.with_suffix(".lock")):
            keep = [e for e in self.open_entries() if e.id not in closed]
            replace_private(self.path, "".join(e.model_dump_json() + "\n" for e in keep))


class WriteJournal:
    """The journal as the strike desk uses it."""

    def __init__(
        self, journal: Journal, records: Records, clock: Callable[[], float] = time.time
    ) -> None:
        self.journal = journal
        self.records = records
        self.clock = clock
        self._replayed = False
        self._replaying = anyio.Lock()

    @classmethod
    def beside(cls, records: Records, clock: Callable[[], float] = time.time) -> WriteJournal:
        return cls(Journal(records.path.parent), records, clock)

    async def sending(self, row: Strike) -> None:
        """A durable trace of ``row`` before it is sent; PlatformError (nothing sent, the
        claim released) when the journal cannot be written."""
        try:
            await anyio.to_thread.run_sync(self.journal.append_sending, row)
        except OSError as exc:
            why = _why(exc, self.journal.path)
            log.error("record %s: not sent: %s", row.id, why)
            with contextlib.suppress(Exception):  # if the record fails too, settling frees it
                await self.records.run(
                    StrikeStore.settle,
                    row.id,
                    StrikeStatus.FAILED,
                    reason=f"not sent: {why}",
                    now=self.clock(),
                )
            raise unavailable(f"Nothing was sent (record {row.id}): {why}") from None

    async def recorded(self, strike_id: int) -> None:
        """The outcome is in the record. Best effort: an entry left open is closed by the
        next replay, which finds the row settled."""
        try:
            await anyio.to_thread.run_sync(self.journal.append_recorded, strike_id)
        except OSError as exc:
            log.warning("write journal: could not note record %s as recorded: %s", strike_id, exc)

    async def ready(self, strict: bool = False) -> None:
        """Replay once (before the first strike); a failed replay is tried again next time.
        ``strict`` (a strike): PlatformError meanwhile, since a write the record lost may
        hold the very target (scout and the start go on)."""
        if self._replayed:
            return
        async with self._replaying:
            if not self._replayed:
                try:
                    await self.replay()
                except Exception as exc:  # the record or the journal is not usable yet
                    log.warning("write journal: replay deferred: %s", exc)
                    if strict:
                        raise unavailable(
                            f"Nothing was sent: the write journal {self.journal.path} could not "
                            f"be put back into the strike record yet ({exc}), and a write it "
                            "holds may be on this target. `gwanjong doctor` shows what is wrong."
                        ) from None

    async def replay(self) -> int:
        """Put every open entry back into the record (see `restore`); how many are still
        unsettled there. Raises PlatformError when the record cannot be used."""
        entries = await anyio.to_thread.run_sync(self.journal.open_entries)
        unsettled = 0
        if entries:  # none: the record is not asked at all
            closed, unsettled = await self.records.run(replay_into, entries, self.clock())
            log.info(
                "write journal: %d open entries replayed; %d writes still unsure",
                len(entries),
                unsettled,
            )
            try:
                await anyio.to_thread.run_sync(self.journal.compact, closed)
            except OSError as exc:  # kept as it is: replaying it again is harmless
                log.warning("write journal: could not compact %s: %s", self.journal.path, exc)
        self._replayed = True
        return unsettled


def _why(exc: OSError, path: Path) -> str:
    trouble = disk_trouble(exc)
    if trouble is Trouble.FULL:
        return (
            f"the disk holding {path.parent} is full, so the write journal {path} cannot "
            "note it first (a write without a durable trace is never sent). Free space "
            "there, then try again; `gwanjong doctor` shows what is wrong."
        )
    if trouble is Trouble.READ_ONLY:
        return (
            f"the write journal {path} cannot be written ({exc.strerror}): state_dir is "
            f"read-only, so nothing is sent. Make {path.parent} writable, then try again."
        )
    return (
        f"the write journal {path} cannot be written ({exc.strerror or exc}); nothing is "
        "sent until it can. `gwanjong doctor` shows what is wrong."
    )
