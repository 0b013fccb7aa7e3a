"""The console's reads of the record: a history page (keyset on the id, filters on
platform, status, principal and a date range), every open hand-off and the counts by status
`gwanjong doctor` shows, on each engine (`record`)."""

from __future__ import annotations

import itertools

from gwanjong_gateway.record.store import HistoryFilter, StrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus
from tests.gateway.rows import strike_row

DAY = 86400.0
START = 1_800_000_000.0
_KEYS = itertools.count()


def add(store: StrikeStore, n: int, status: StrikeStatus, platform: str, principal: str) -> int:
    where = {"platform": platform, "target": f"t{n}", "opportunity": f"{platform}:{n}"}
    return strike_row(
        store,
        intent_key=f"h{next(_KEYS)}",
        content=f"text {n}",
        status=status,
        principal=principal,
        now=START + n * DAY,
        **where,
    ).id


def test_history_pages_and_open_handoffs(record: StrikeStore) -> None:
    statuses = [StrikeStatus.POSTED, StrikeStatus.REFUSED, StrikeStatus.HANDOFF]
    ids = [
        add(record, n, statuses[n % 3], "devto" if n % 2 else "reddit", "alice" if n % 4 else "")
        for n in range(12)
    ]
    everything = HistoryFilter()
    first = record.history_page(everything, None, 5)
    assert [r.id for r in first] == ids[::-1][:5]
    second = record.history_page(everything, first[-1].id, 5)
    assert [r.id for r in second] == ids[::-1][5:10]
    third = record.history_page(everything, second[-1].id, 5)
    assert [r.id for r in third] == ids[::-1][10:]
    posted_devto = record.history_page(HistoryFilter(platform="devto", status=StrikeStatus.POSTED))
    assert [r.id for r in posted_devto] == [ids[n] for n in (9, 3)]
    local = record.history_page(HistoryFilter(principal=""))
    assert [r.id for r in local] == [ids[n] for n in (8, 4, 0)]
    days = record.history_page(HistoryFilter(since=START + 2 * DAY, until=START + 5 * DAY))
    assert [r.id for r in days] == [ids[n] for n in (4, 3, 2)]
    assert [r.id for r in record.open_handoffs()] == [ids[n] for n in (2, 5, 8, 11)]
    assert [r.id for r in record.open_handoffs("alice")] == [ids[n] for n in (2, 5, 11)]
    assert record.open_handoffs("nobody") == []


def test_status_counts_count_every_row_by_status(record: StrikeStore) -> None:
    """What `gwanjong doctor` shows of the record: one count per status, all rows counted."""
    assert record.status_counts() == {}
    for n, status in enumerate([StrikeStatus.POSTED, StrikeStatus.POSTED, StrikeStatus.FAILED]):
        add(record, n, status, "devto", "")
    add(record, 3, StrikeStatus.PENDING, "bluesky", "alice")
    assert record.status_counts() == {"posted": 2, "failed": 1, "pending": 1}
