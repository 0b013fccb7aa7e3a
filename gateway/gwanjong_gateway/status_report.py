"""What `status` answers: where the client is in scout -> draft -> strike (the pipeline's
own report), and how each platform, the strike record and the usage log are doing."""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Callable
from functools import partial
from typing import Any

import anyio

from gwanjong_gateway.config import WriteMode
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.platforms.client import probe_all
from gwanjong_gateway.platforms.health import PlatformState
from gwanjong_gateway.platforms.upstream import Health
from gwanjong_gateway.record.readers import Reader
from gwanjong_gateway.record.records import health_of, within
from gwanjong_gateway.record.rows.notice_rows import Notice
from gwanjong_gateway.rules.approvals import iso
from gwanjong_gateway.scout.late import wait_within
from gwanjong_gateway.wire import Link, Quoted, Result, optional
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.contract.untrusted import one_line

#: how long status waits for the strike record, and for the usage log (it answers in 2 s)
STATUS_RECORD_S = 0.8
#: how long status waits for stale platforms' `capabilities` before it answers with what
#: is known (the refresh goes on in the background, for the next status)
STATUS_PROBE_S = 0.5
#: the refresh under way, per gateway: one at a time, however often status is called
_probing: weakref.WeakKeyDictionary[Gateway, asyncio.Task[None]] = weakref.WeakKeyDictionary()


class Filled(Result):
    populated: bool
    count: int


class Blocked(Result):
    tool: str
    waiting_for: list[str]
    call_first: list[str]


class Steps(Result):
    available: list[str]
    blocked: list[Blocked]


class PlatformSide(Result):
    """The platform behind the server, as last probed."""

    state: PlatformState
    until: str | None = optional()
    detail: Quoted | None = optional()
    checked_at: str | None = optional()


class PlatformRow(Result):
    health: Health
    reason: str
    next_try_in_s: int | None = optional()
    platform: PlatformSide
    writes_paused: str | None
    cannot_write: str | None = optional("its server answers every write never: why")


class Waiting(Result):
    """A write waiting for a person (`gwanjong review`)."""

    id: int
    platform: str
    action: str
    target: Link
    expires_at: str


class Decision(Result):
    """How a recent approval ended, and who decided where: ``said`` in the past tense,
    ``reason`` the person's (a decline's, cleaned) or the chain's (a refusal's)."""

    id: int
    status: str
    decided_by: str
    channel: str
    decided_at: str
    record: int | None
    said: str
    reason: str


class Notified(Result):
    """`[notify]`'s last message: counts and names only; channels as scheme and host."""

    last: str
    sent_at: str | None = optional()
    error: str | None = optional()


class StatusResult(Result):
    state: dict[str, Filled]
    tools: Steps
    writes: WriteMode
    platforms: dict[str, PlatformRow]
    unsettled_writes: int
    approvals: list[Waiting]
    decisions: list[Decision]
    usage_7d: list[str]
    strike_record: str | None = optional()
    background: str | None = optional()
    notified: Notified | None = optional()


async def _refresh_within(gw: Gateway, deadline_s: float) -> None:
    """Probe the stale platforms in the background, waiting at most `deadline_s` for it."""
    task = _probing.get(gw)
    if task is None or task.done():
        task = _probing[gw] = asyncio.get_running_loop().create_task(probe_all(gw.upstreams))
    await wait_within({"probe": task}, deadline_s, gw.sleep)  # the refresh goes on after


async def status_report(
    gw: Gateway, pipeline_report: dict[str, Any], usage: Callable[..., list[str]], who: Reader
) -> StatusResult:
    """`pipeline_report`: the pipeline's `describe` of the caller's state; `usage`: the
    usage log's compact summary (run in a worker thread, within the deadline); `who`:
    whose records and usage the caller reads (team mode: their own). Every deadline here
    is waited with `gw.sleep`, the gateway's own clock."""
    record: dict[str, Any] = {}
    failed = None
    # what a frozen usage database leaves
    used = [f"the usage log did not answer within {STATUS_RECORD_S:g} s"]

    async def ask_record() -> None:
        nonlocal record, failed
        try:
            record = await gw.records.run_within(
                min(STATUS_RECORD_S, gw.records.deadline_s),
                health_of,
                list(gw.upstreams.health()),
                who,
                gw.desk.claims.clock(),
                tuple(gw.config.review.approvers),
                sleep=gw.sleep,
            )
        except PlatformError as exc:
            failed = str(exc)

    async def read_usage() -> list[str]:  # given up at the deadline: its thread runs out
        return await anyio.to_thread.run_sync(partial(usage, reader=who), abandon_on_cancel=True)

    async def ask_usage() -> None:
        nonlocal used
        with contextlib.suppress(TimeoutError):
            used = await within(STATUS_RECORD_S, gw.sleep, read_usage)

    # side by side: a frozen database costs status one deadline, not two in a row
    async with anyio.create_task_group() as tg:
        # cached: probes only platforms not seen lately, and answers within a second
        tg.start_soon(_refresh_within, gw, STATUS_PROBE_S)
        tg.start_soon(ask_record)
        tg.start_soon(ask_usage)
    platforms: dict[str, PlatformRow] = {}
    for name, row in gw.upstreams.health().items():
        paused = record.get("paused", {}).get(name, "")
        platforms[name] = PlatformRow.model_validate(
            {
                **row,
                "reason": one_line(str(row.get("reason", "")), 300),
                "writes_paused": paused or None,
                "cannot_write": one_line(gw.upstreams.profiles.cannot_write(name), 300) or None,
            }
        )
    return StatusResult(
        state={name: Filled.model_validate(f) for name, f in pipeline_report["state"].items()},
        tools=Steps.model_validate(pipeline_report["tools"]),
        writes=gw.config.gateway.writes,
        platforms=platforms,
        unsettled_writes=record.get("unsettled", 0),
        approvals=[Waiting.model_validate(a) for a in record.get("approvals", [])],
        decisions=[
            Decision.model_validate({**a, "reason": one_line(str(a.get("reason", "")), 300)})
            for a in record.get("decided", [])
        ],
        usage_7d=used,
        strike_record=failed,
        background=gw.upstreams.background.failure or None,
        notified=_notified(record.get("notified") if gw.config.notify.urls else None),
    )


def _notified(last: Notice | None) -> Notified | None:
    if last is None:
        return None
    sent_at = iso(last.sent_at) if last.sent_at else None
    error = one_line(last.error, 300) or None
    return Notified(last=one_line(last.summary, 200), sent_at=sent_at, error=error)
