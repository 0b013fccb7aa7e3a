"""Two replicas settling one unsure write: two gateways on one strike record (a SQLite
file, or one PostgreSQL), each with its own record connection and its own settler, both
reading the same fake platform back. Shared by the SQLite (fast) and PostgreSQL tests."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.rules.ledger import Strike, StrikeStatus
from gwanjong_gateway.strike.settle import Settler
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.gateway.helpers import gateway_of
from tests.gateway.rows import strike_row

TEXT = "Cancel scopes belong around every await that can hang."
#: the log line a settler writes only when its own move settled the row
SETTLED = "settled as"


@dataclass
class Replica:
    gateway: Gateway
    settler: Settler


def replicas(
    tmp_path: Path, fake: FakePlatform, clock: FakeClock, store_url: str = ""
) -> list[Replica]:
    """Two gateways on one record (``store_url``: a PostgreSQL one; "": one SQLite file in
    a shared state_dir), each with a settler on the injected clock."""
    store = {"store": {"url": store_url}} if store_url else {}
    tables = {"safety": {"settle_window_s": 120}, **store}
    out: list[Replica] = []
    for i in range(2):
        state = tmp_path / f"replica{i}" if store_url else tmp_path  # PostgreSQL: hosts apart
        state.mkdir(exist_ok=True)
        gw, _ = gateway_of(state, fake, tables=tables)
        settler = Settler(gw.config, gw.upstreams, gw.records, clock=clock.time, mono=clock)
        out.append(Replica(gw, settler))
    return out


async def landed_unsure(fake: FakePlatform, replica: Replica, clock: FakeClock) -> Strike:
    """A comment that reached the platform though its answer was lost: on the platform,
    and `unknown` in the record."""
    post = next(iter(fake.posts))
    fake.record("write_comment", post, body=TEXT)
    unsure = {"status": StrikeStatus.UNKNOWN, "reason": "outcome unknown: timeout"}
    return await replica.gateway.records.run(
        strike_row, intent_key="k-race", target=post, content=TEXT, now=clock.time(), **unsure
    )


async def reached(fake: FakePlatform, op: str) -> None:
    """Until the fake platform has been asked ``op`` (each pass yields to the others)."""
    for _ in range(10_000):
        if op in fake.calls:
            return
        await anyio.sleep(0.001)
    raise AssertionError(f"{op} was never asked")


async def race(
    fake: FakePlatform, pair: list[Replica], caplog: pytest.LogCaptureFixture
) -> list[int]:
    """Both replicas' settle loops run while the first one's read-back is still at the
    platform; how many each says it settled."""
    caplog.set_level(logging.INFO, logger="gwanjong_gateway.strike.settle")
    fake.hang("get_comments")  # the first read-back waits at the platform until released
    counts = [0, 0]

    async def first() -> None:
        counts[0] = await pair[0].settler.settle_due()

    async with anyio.create_task_group() as tg:
        tg.start_soon(first)
        await reached(fake, "get_comments")
        counts[1] = await pair[1].settler.settle_due()  # the other replica, meanwhile
        fake.release()
    return counts


def settled_lines(caplog: pytest.LogCaptureFixture, row: Strike) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.getMessage().startswith(f"record {row.id}: {SETTLED}")
    ]


async def close(pair: list[Replica]) -> None:
    for replica in pair:
        await replica.gateway.upstreams.close_all()
        replica.gateway.close_store()
