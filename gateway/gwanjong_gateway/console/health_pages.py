"""Inbox, usage and health pages. The inbox is read without moving its cursors (`Peek`):
looking here does not hide a summons from the model.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, defaultdict
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from gwanjong_gateway.console.app import Console, Refusal, redirect
from gwanjong_gateway.console.charts import Bar, bars
from gwanjong_gateway.console.guard import Session
from gwanjong_gateway.record.readers import Reader
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.scout import inbox
from gwanjong_gateway.scout.acted import acted_in
from gwanjong_gateway.scout.state import Opportunity
from gwanjong_gateway.setup.tool import may_operate
from gwanjong_gateway.watch.watcher import NOTICED
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.contract.visible import line

WEEK_S = 7 * 86400
#: figures older than this are read again in the background, while the page answers with
#: the ones it has (reading a busy week's log takes ~0.1-0.4 s; the page says when its
#: figures were read)
USAGE_FRESH_S = 10.0
EMPTY_USAGE: dict[str, Any] = {"platform_tools": [], "rate_remaining": {}}
INBOX_ROWS = 60


class Peek:
    """The inbox's cursors, read but never moved: a page's next listing goes on from where
    its last one ended (kept for this page only)."""

    def __init__(self, cursors: inbox.CursorStore) -> None:
        self.cursors = cursors
        self.page: dict[str, str] = {}

    async def aget(self, platform: str) -> str | None:
        return self.page.get(platform) or await self.cursors.aget(platform)

    async def aset(self, platform: str, cursor: str) -> None:
        self.page[platform] = cursor


async def inbox_page(c: Console, request: Request, session: Session) -> Response:
    errors: dict[str, str] = {}
    found: list[Opportunity] = []
    notes: dict[str, str] = {}
    peek, names = Peek(c.gw.cursors), c.gw.upstreams.names()
    try:
        # a platform with more than one listing waiting is read on, up to the page's rows
        for _ in range(INBOX_ROWS // inbox.PER_PLATFORM):
            got, said = await inbox.inbox(
                c.gw.upstreams,
                acted_in(c.gw.records),
                peek,
                names,
                INBOX_ROWS - len(found),
                c.config.safety.opt_out,
            )
            found += got
            notes = {name: n for name, n in notes.items() if name not in names} | said
            names = [name for name, note in said.items() if note == inbox.MORE]
            if not names or len(found) >= INBOX_ROWS:
                break
    except PlatformError as exc:
        errors["record"] = line(exc.message, 300)
    errors |= {line(name, 40): line(note, 300) for name, note in notes.items()}
    if c.gw in NOTICED:  # the nav's inbox count starts again from here
        NOTICED[c.gw] = 0
    return c.render("inbox.html", session, found=found, errors=errors)


def _charts(report: dict[str, Any]) -> dict[str, Any]:
    calls: Counter[str] = Counter()
    errors: defaultdict[str, Counter[str]] = defaultdict(Counter)
    p95: list[Bar] = []
    for t in report["platform_tools"]:
        plat = line(str(t["platform"]), 30)
        calls[plat] += int(t["calls"])
        for kind, n in dict(t["errors"]).items():
            errors[plat][str(kind)] += int(n)
        if t.get("p95_ms") is not None:
            p95.append(Bar(f"{plat} {line(str(t['tool']), 20)}", [("p95", float(t["p95_ms"]))]))
    rates = [
        Bar(
            line(str(plat), 30),
            [("left", 100.0 * float(w["remaining"] or 0) / max(float(w["limit"] or 1), 1.0))],
            note=f"{w['remaining']} of {w['limit']} left",
        )
        for plat, w in sorted(dict(report["rate_remaining"]).items())
    ]
    return {
        "calls": bars(
            "Calls per platform, last 7 days",
            [Bar(k, [("calls", v)]) for k, v in sorted(calls.items())],
        ),
        "errors": bars(
            "Errors by kind per platform, last 7 days",
            [Bar(k, sorted(v.items())) for k, v in sorted(errors.items())],
            legend=True,  # the kinds are the point
        ),
        "p95": bars("p95 latency per platform tool, last 7 days", p95, " ms"),
        "rates": bars("Rate-limit windows left, share of each window", rates, top=100.0),
        "rate_notes": [
            f"{line(str(p), 30)}: {w['remaining']} of {w['limit']} left ({line(str(w['tool']), 30)}), resets {line(str(w['reset_at']), 30)}"
            for p, w in sorted(dict(report["rate_remaining"]).items())
        ],
        "totals": {
            "calls": sum(calls.values()),
            "errors": sum(sum(v.values()) for v in errors.values()),
        },
    }


async def read_usage(c: Console, key: str, reader: Reader) -> tuple[float, dict[str, Any]]:
    """Read the usage log (in a worker thread) into the console's cache."""
    try:
        report = await anyio.to_thread.run_sync(lambda: c.usage().report(WEEK_S, reader))
    except Exception as exc:  # the usage log is a figure, never the page's failure
        report = {**EMPTY_USAGE, "trouble": line(str(exc), 300)}
    read = (c.clock(), report)
    c.usage_cache[key] = read
    return read


async def usage_page(c: Console, request: Request, session: Session) -> Response:
    reader = c.reader(session)
    key = "*" if reader.everyone else f"={reader.principal}"
    cached = c.usage_cache.get(key)
    if cached is None:  # the first look waits for the figures; later ones never do
        cached = await read_usage(c, key, reader)
    elif c.clock() - cached[0] >= USAGE_FRESH_S and key not in c.usage_reading:
        task = asyncio.get_running_loop().create_task(read_usage(c, key, reader))
        c.usage_reading[key] = task  # kept until done (a task nobody holds may vanish)
        task.add_done_callback(lambda _: c.usage_reading.pop(key, None))
    at, report = cached
    trouble = str(report.get("trouble", ""))
    paused: dict[str, str] = {}
    for name in c.gw.upstreams.names():
        try:
            paused[name] = await c.gw.records.run(StrikeStore.paused, name)
        except PlatformError as exc:
            paused[name] = f"(the record cannot say: {exc.message})"
    return c.render(
        "usage.html",
        session,
        charts=_charts(report),
        health=c.gw.upstreams.health(),
        paused=paused,
        trouble=trouble,
        as_of=time.strftime("%H:%M:%S UTC", time.gmtime(at)),
        may_resume=may_operate(c.config, session.principal),
    )


async def resume(c: Console, request: Request, session: Session) -> Response:
    form = await c.form(request, session)
    if not may_operate(c.config, session.principal):
        raise Refusal(403, "Only the operator or an approver may resume a platform's writes.")
    name = form.get("platform", "")
    if name not in c.gw.upstreams.names():
        raise Refusal(404, "No such platform: nothing changed.")
    await c.gw.records.run(StrikeStore.clear_pause, name)
    return redirect("/usage")
