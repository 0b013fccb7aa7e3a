"""The record's approvals, a mixin of `StrikeStore`. Consumption (`_consume`) runs in the
claim's own transaction (`StrikeStore.decide`): an approval executes at most once.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from gwanjong_gateway.record.sql.statements import Statements, where
from gwanjong_gateway.rules.approvals import Approval, ApprovalStatus, ApprovalUse, iso
from gwanjong_gateway.rules.ledger import Strike
from gwanjong_gateway.rules.outgoing import Outgoing


@dataclass(frozen=True)
class NewApproval:
    """An approvals row as it is inserted (a name that is not a column is a TypeError,
    never SQL); the rest of the columns' defaults are a pending approval's; ``id`` None:
    the next one. ``post``, ``context``, ``policy``: JSON, or the value to write as JSON."""

    platform: str
    target: str
    action: str
    intent_key: str
    lock_key: str
    text: str
    body: str
    digest: str
    post: Any
    expires_at: float
    principal: str = ""
    target_url: str = ""
    author: str = ""
    opportunity: str = ""
    title: str = ""
    context: Any = "{}"
    policy: Any = "[]"
    token_hash: str = ""
    outgoing: str = ""
    status: ApprovalStatus = ApprovalStatus.PENDING
    created_at: float = 0.0
    decided_at: float | None = None
    decided_by: str = ""
    channel: str = ""
    reason: str = ""
    edited: bool | int = False
    record: int | None = None
    id: int | None = None


class ApprovalRows(Statements):
    def approval(self, approval_id: int) -> Approval | None:
        return self.engine.row(Approval, "SELECT * FROM approvals WHERE id = ?", (approval_id,))

    def _pending_for(self, key: str) -> Approval | None:
        return self.engine.row(
            Approval,
            f"SELECT * FROM approvals WHERE lock_key = ? AND status = ?{self.engine.FOR_UPDATE}",
            (key, ApprovalStatus.PENDING),
        )

    def _set(self, approval_id: int, **fields: Any) -> None:
        sets = ", ".join(f"{name} = ?" for name in fields)  # names from this module only
        self.engine.x(f"UPDATE approvals SET {sets} WHERE id = ?", (*fields.values(), approval_id))

    def _locked(self, approval_id: int) -> Approval | None:
        """The approval, locked until the transaction ends (it is decided next)."""
        return self.engine.row(
            Approval,
            f"SELECT * FROM approvals WHERE id = ?{self.engine.FOR_UPDATE}",
            (approval_id,),
        )

    def _expire(self, approval_id: int, now: float) -> None:
        """Inside the transaction that found it pending and past its time."""
        self._set(
            approval_id,
            status=ApprovalStatus.EXPIRED,
            decided_at=now,
            reason="nobody decided in time",
        )

    def open_approval(self, now: float, row: NewApproval) -> tuple[Approval, bool]:
        """The pending approval of ``row.lock_key``: the one already waiting (False), or
        ``row`` opened now (True). One past its time is expired first, freeing the key."""
        key = row.lock_key
        with self._transaction(immediate=True, lock=f"approval:{key}"):
            waiting = self._pending_for(key)
            if waiting is not None and waiting.open_at(now):
                return waiting, False
            if waiting is not None:
                self._expire(waiting.id, now)
            pending = dataclasses.replace(row, status=ApprovalStatus.PENDING, created_at=now)
            made = self._insert_approval(pending)
        created = self.approval(made)
        assert created is not None
        return created, True

    def pending_approval(self, key: str, now: float) -> Approval | None:
        """The approval waiting on ``key`` now, if any."""
        waiting = self._pending_for(key)
        return waiting if waiting is not None and waiting.open_at(now) else None

    def last_before(self, key: str, before: int) -> Approval | None:
        """The latest approval on ``key`` older than approval ``before`` (how the last
        person to see this target decided)."""
        return self.engine.row(
            Approval,
            "SELECT * FROM approvals WHERE lock_key = ? AND id < ? ORDER BY id DESC LIMIT 1",
            (key, before),
        )

    def approvals(
        self,
        now: float,
        pending: bool = True,
        principal: str | None = None,
        limit: int = 50,
        after: int = 0,
    ) -> list[Approval]:
        """Pending ones (oldest first), or every one (newest first); ``principal``: only
        theirs (None: everyone's); ``after``: pending ones past this id (the next page)."""
        sql, args = where(
            ("status = ?", ApprovalStatus.PENDING if pending else None),
            ("expires_at > ?", now if pending else None),
            ("principal = ?", principal),
            ("id > ?", after or None),
        )
        order = "ASC" if pending else "DESC"
        return self.engine.rows(
            Approval, f"SELECT * FROM approvals {sql} ORDER BY id {order} LIMIT ?", [*args, limit]
        )

    def expired_between(self, since: float, now: float) -> list[Approval]:
        """Those that expired between ``since`` and ``now``: nobody decided in time."""
        return self.engine.rows(
            Approval,
            "SELECT * FROM approvals WHERE status IN (?, ?) AND expires_at > ? "
            "AND expires_at <= ? ORDER BY id",
            (ApprovalStatus.PENDING, ApprovalStatus.EXPIRED, since, now),
        )

    def close_approval(
        self,
        approval_id: int,
        status: ApprovalStatus,
        now: float,
        by: str = "",
        channel: str = "",
        reason: str = "",
        record: int | None = None,
    ) -> Approval | None:
        """Move a pending approval to ``status`` (declined, refused, expired); None if it
        was no longer pending (decided meanwhile, or past its time: then it is expired)."""
        with self._transaction(immediate=True, lock=f"approval-id:{approval_id}"):
            found = self._locked(approval_id)
            if found is None or found.status != ApprovalStatus.PENDING:
                return None
            if found.expires_at <= now:
                self._expire(approval_id, now)
                return None
            self._set(
                approval_id,
                status=status,
                decided_at=now,
                decided_by=by,
                channel=channel,
                reason=reason,
                record=record,
            )
        return self.approval(approval_id)

    def approval_of(self, record: int) -> Approval | None:
        """The approval a strike row came from (approved, declined or refused), if any."""
        return self.engine.row(
            Approval, "SELECT * FROM approvals WHERE record = ? ORDER BY id DESC LIMIT 1", (record,)
        )

    def restore_approval(self, row: dict[str, Any]) -> None:
        """Put back an approval row as it was, id kept (`gwanjong doctor --repair`)."""
        self._insert_approval(NewApproval(**row))

    def _insert_approval(self, row: NewApproval) -> int:
        omit = ("id",) if row.id is None else ()
        return int(self.engine.insert("approvals", [row], returning="id", omit=omit))

    def link_approval(self, approval_id: int, record: int) -> None:
        """The strike row a decided approval became (a decline's `declined` row)."""
        self._set(approval_id, record=record)

    def _unusable(self, use: ApprovalUse, now: float) -> str:
        """Why this approval cannot be consumed now ("" = it can); inside the claim."""
        found = self._locked(use.id)
        if found is None:
            return f"Approval {use.id} does not exist."
        if found.status != ApprovalStatus.PENDING:
            who = f" by {found.decided_by}" if found.decided_by else ""
            when = f" at {iso(found.decided_at)}" if found.decided_at else ""
            return f"Approval {use.id} was already {found.status}{who}{when}: nothing more is sent."
        if found.expires_at <= now:
            self._expire(use.id, now)
            return f"Approval {use.id} expired at {iso(found.expires_at)}: nothing was sent."
        if not use.edited and found.digest != use.digest:
            return (
                f"What would be sent is no longer what was approved in approval {use.id} "
                "(its SHA-256 differs): nothing was sent."
            )
        return ""

    def _consume(
        self,
        use: ApprovalUse,
        now: float,
        record: Strike,
        sent: str,
        length: dict[str, Any] | None = None,
    ) -> None:
        """The approval becomes the claimed write ``record``, never pending again. ``sent``: the
        write's canonical JSON, the person's edit included ("" = the record's text and title);
        ``length``: the platform's count of that text (kept in `context`, as shown)."""
        text, title = record.content, record.title
        if sent:
            write = Outgoing.load(sent)
            text, title = write.text, write.title
        found = self.approval(use.id) if length is not None else None
        if found is not None:
            self._set(use.id, context={**found.context, "length": length})
        self._set(
            use.id,
            status=ApprovalStatus.APPROVED,
            decided_at=now,
            decided_by=use.by,
            channel=use.channel,
            record=record.id,
            edited=use.edited,
            text=text,
            title=title,
            digest=use.digest,
            outgoing=sent,
        )
