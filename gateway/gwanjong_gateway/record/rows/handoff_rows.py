"""The record's hand-offs (docs/use/review.md), a mixin of `StrikeStore`. Expiry is a sweep
before the queue is read, so an old one never reaches a person as waiting; the model's
unproven "posted" is only noted (`claimed_at`), the row stays `handoff`.
"""

from __future__ import annotations

import time
from typing import Any

from gwanjong_gateway.record.sql.statements import Statements, where
from gwanjong_gateway.rules.ledger import Strike, StrikeStatus


class HandoffRows(Statements):
    def pending_handoffs(self, opportunity: str, platform: str) -> list[Strike]:
        """The hand-offs of this opportunity that no one has closed yet, oldest first."""
        return self.engine.rows(
            Strike,
            "SELECT * FROM strikes WHERE opportunity = ? AND status = ? AND platform = ? "
            "ORDER BY id",
            (opportunity, StrikeStatus.HANDOFF, platform),
        )

    def open_handoffs(
        self, principal: str | None = None, limit: int = 200, after: int = 0
    ) -> list[Strike]:
        """Every hand-off no one has closed yet, oldest first (``principal``: theirs;
        ``after``: past this id, the next page)."""
        sql, args = where(
            ("status = ?", StrikeStatus.HANDOFF),
            ("principal = ?", principal),
            ("id > ?", after or None),
        )
        return self.engine.rows(
            Strike, f"SELECT * FROM strikes {sql} ORDER BY id LIMIT ?", [*args, limit]
        )

    def expired_handoffs(self, since: float, older_than: float) -> list[Strike]:
        """Hand-offs handed over from ``since`` to before ``older_than`` that no person
        closed: expired, by the sweep or (not swept yet) by their age. Oldest first."""
        return self.engine.rows(
            Strike,
            "SELECT * FROM strikes WHERE status IN (?, ?) AND created_at >= ? "
            "AND created_at < ? ORDER BY id",
            (StrikeStatus.HANDOFF, StrikeStatus.EXPIRED, since, older_than),
        )

    def _waiting(self, strike_id: int) -> Strike | None:
        """The hand-off if it still waits, locked until the transaction ends."""
        return self.engine.row(
            Strike,
            f"SELECT * FROM strikes WHERE id = ? AND status = ?{self.engine.FOR_UPDATE}",
            (strike_id, StrikeStatus.HANDOFF),
        )

    def close_handoff(
        self, strike_id: int, status: StrikeStatus, now: float, **fields: Any
    ) -> Strike | None:
        """Move a waiting hand-off to ``status`` (posted, dismissed); None if it no longer
        waits (closed meanwhile, or expired)."""
        with self._transaction(immediate=True, lock=f"handoff:{strike_id}"):
            if self._waiting(strike_id) is None:
                return None
            return self.update(strike_id, status=status, now=now, **fields)

    def confirm_handoff(self, strike_id: int, **fields: Any) -> Strike | None:
        """Mark a waiting hand-off posted; None if it no longer waits."""
        now = float(fields.pop("now", 0) or time.time())
        return self.close_handoff(strike_id, StrikeStatus.POSTED, now, **fields)

    def note_claim(self, strike_id: int, url: str, line: str, now: float) -> Strike | None:
        """The model said hand-off ``strike_id`` was posted and nothing proved it: note the
        claim (and ``url``, already checked), the row stays waiting. None: it no longer waits."""
        with self._transaction(immediate=True, lock=f"handoff:{strike_id}"):
            row = self._waiting(strike_id)
            if row is None:
                return None
            policy = [*row.policy, line]
            return self.update(strike_id, claimed_at=now, claimed_url=url, policy=policy, now=now)

    def any_to_expire(self, older_than: float) -> bool:
        """Whether a hand-off handed over before ``older_than`` still waits (a read: the
        sweep writes only when one does)."""
        return bool(
            self.engine.value(
                "SELECT 1 FROM strikes WHERE status = ? AND created_at < ? LIMIT 1",
                (StrikeStatus.HANDOFF, older_than),
            )
        )

    def expire_handoffs(self, older_than: float, now: float) -> int:
        """Every hand-off handed over before ``older_than`` and still waiting expires; how
        many did."""
        why = "expired: no person closed or dismissed it in time"
        return self.engine.x(
            "UPDATE strikes SET status = ?, updated_at = ?, reason = ? "
            "WHERE status = ? AND created_at < ?",
            (StrikeStatus.EXPIRED, now, why, StrikeStatus.HANDOFF, older_than),
        ).rowcount
