"""The navigation's counts (polled by static/copy.js, same session guard). The inbox count
is only what this process's watcher noticed: the console never reads a platform to count
(X's reads are paid).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gwanjong_gateway.console.app import Console
from gwanjong_gateway.console.guard import Session
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.watch.seen import noticed

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response


async def counts(c: Console, request: Request, session: Session) -> Response:
    from starlette.responses import JSONResponse

    now = c.clock()
    waiting = await c.gw.records.run(
        StrikeStore.approvals, now, pending=True, principal=c.approvals_of(session), limit=200
    )
    reader = c.reader(session)
    handoffs = await c.gw.records.run(
        StrikeStore.open_handoffs, None if reader.everyone else (reader.principal or "\x00")
    )
    body: dict[str, int] = {
        "approvals": sum(1 for a in waiting if a.open_at(now)),
        "handoffs": len(handoffs),
    }
    inbox = noticed(c.gw)
    if inbox is not None:
        body["inbox"] = inbox
    return JSONResponse(body)
