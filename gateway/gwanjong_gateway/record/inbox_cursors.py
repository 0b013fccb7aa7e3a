"""Inbox cursors in the shared strike record (with `[store] url`): every gateway replica
moves one `next_since` per platform, so a summons is listed once for the team, not once
per replica. The file-backed `inbox.Cursors` stays the default."""

from __future__ import annotations

import logging

from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_shared.contract.errors import PlatformError

log = logging.getLogger(__name__)


class RecordCursors:
    def __init__(self, records: Records) -> None:
        self.records = records

    async def aget(self, platform: str) -> str | None:
        try:
            return await self.records.run(StrikeStore.inbox_cursor, platform)
        except PlatformError as exc:  # the record is down: a full inbox, nothing lost
            log.warning("inbox: cursor for %s unavailable (%s)", platform, exc)
            return None

    async def aset(self, platform: str, cursor: str) -> None:
        try:
            await self.records.run(StrikeStore.set_inbox_cursor, platform, cursor)
        except PlatformError as exc:  # the same summons may show again next time
            log.warning("inbox: could not save the cursor for %s (%s)", platform, exc)
