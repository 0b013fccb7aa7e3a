"""What waits, for the navigation's counts: a small JSON answer the console's script
(static/copy.js) polls, behind the same session guard as every page.

Approvals and hand-offs come from the record (what this session may see); the inbox count
is what the watcher in this process has noticed since the Inbox page was last opened
(absent when no watcher runs here: the console never reads a platform to count, since
X's reads are paid).
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
