"""Approvals, hand-offs, history and the navigation's counts. Another person's approval
or record answers as a missing one; decisions go through `StrikeDesk.decide`, like every
surface.
"""

from __future__ import annotations

import calendar
import time
from typing import Any, Literal

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from gwanjong_gateway.console.app import Console, Refusal, redirect, when
from gwanjong_gateway.console.guard import Session
from gwanjong_gateway.platforms.client import PlatformClient
from gwanjong_gateway.record.store import HistoryFilter, StrikeStore
from gwanjong_gateway.rules.approvals import UNITS, Approval, Channel, Hold
from gwanjong_gateway.rules.ledger import RECORDED, StrikeAction, StrikeStatus
from gwanjong_gateway.rules.outgoing import Edit, parse_tags
from gwanjong_gateway.rules.refs import handoff_ref
from gwanjong_gateway.strike.holds import hold_of, holds
from gwanjong_gateway.strike.results import Refused
from gwanjong_gateway.watch.watcher import NOTICED
from gwanjong_gateway.web import safe_url
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.untrusted import one_line
from gwanjong_shared.contract.visible import show as shown

PAGE_ROWS = 50
EDITED = ("text", "title", "tags")
#: how long the approval page waits for the platform's own length check
VALIDATE_S = 3.0


async def approvals(c: Console, request: Request, session: Session) -> Response:
    now = c.clock()
    rows = await c.pending(session, now)
    recent = await c.gw.records.run(
        StrikeStore.approvals, now, pending=False, principal=c.approvals_of(session), limit=20
    )
    held = await c.gw.records.run(holds, c.config, rows, now)
    recent = [a for a in recent if not a.open_at(now)]
    return c.render("approvals.html", session, pending=rows, recent=recent, held=held, now=now)


async def counts(c: Console, request: Request, session: Session) -> Response:
    """The navigation's counts (polled by static/copy.js). The inbox count is only what this
    process's watcher noticed: the console never reads a platform to count (X's reads are paid)."""
    now = c.clock()
    waiting = await c.pending(session, now)
    handoffs = await c.gw.records.run(StrikeStore.open_handoffs, c.owner(session))
    body = {"approvals": sum(1 for a in waiting if a.open_at(now)), "handoffs": len(handoffs)}
    if c.gw in NOTICED:  # a watcher runs here
        body["inbox"] = NOTICED[c.gw]
    return JSONResponse(body)


async def _visible(
    c: Console, session: Session, approval_id: int, held: bool = False
) -> tuple[Approval, Hold | None]:
    """The approval ``session`` may see and, with ``held``, its hold while it is open:
    one trip to the record's thread."""
    mine, now = c.approvals_of(session), c.clock()

    def read(store: StrikeStore) -> tuple[Approval | None, Hold | None]:
        found = store.approval(approval_id)
        if found is None or (mine is not None and found.principal != mine):
            return None, None
        if not held or not found.open_at(now):
            return found, None
        return found, hold_of(store, c.config, found, c.gw.desk.approving.clock())

    found, hold = await c.gw.records.run(read)
    if found is None:
        raise Refusal(404, f"No approval {approval_id} that you may see.")
    return found, hold


async def _length(c: Console, a: Approval, text: str, tags: list[str]) -> dict[str, Any]:
    """The text's length against the platform's limit (its own `validate`), or its
    plain length, said to be ours, when the platform does not answer quickly."""
    unit = "characters, counted here (the platform did not answer)"
    out: dict[str, Any] = {"used": len(text), "max": None, "unit": unit, "problems": []}
    if not StrikeAction(a.action).has_text:
        return out
    tool = StrikeAction(a.action).tool
    post_id = str(a.post.get("id", "")) if a.action != "post" else None
    with anyio.move_on_after(VALIDATE_S):
        try:
            check = await PlatformClient(c.gw.upstreams, a.platform, VALIDATE_S).validate(
                tool, text, a.title, post_id, tags or None
            )
        except PlatformError:
            return out
        out.update(
            used=check.length.used,
            max=check.length.max,
            unit=UNITS.get(check.length.unit, check.length.unit),
            problems=check.problems[:10],
        )
    return out


async def approval(c: Console, request: Request, session: Session) -> Response:
    a, hold = await _visible(c, session, int(request.path_params["id"]), held=True)
    editing = request.query_params.get("edit") == "1"
    return await _page(c, session, a, hold, a.text if editing else None)


async def _page(
    c: Console,
    session: Session,
    a: Approval,
    hold: Hold | None,
    edit: str | None,
    status: int = 200,
    **values: Any,
) -> Response:
    """Approval ``a`` as it stands now (``hold``: read with it); ``edit``: the text in the
    edit form (the person's own, kept when a decision was refused), None for no form."""
    now = c.clock()
    is_open = a.open_at(now)
    editing = edit is not None and is_open
    text = edit if editing and edit is not None else a.text
    tags = list(a.tags)
    length = await _length(c, a, text, tags) if is_open else None
    return c.render(
        "approval.html",
        session,
        status=status,
        a=a,
        open=is_open,
        state=str(a.status_at(now)),
        said=a.said(now),
        created=when(a.created_at),
        expires=when(a.expires_at),
        hold=hold if is_open else None,
        length=length,
        editing=editing,
        raw_text=text,
        # a new post's title and tags in the edit form: the person's own when refused
        **{"raw_title": a.title, "raw_tags": ", ".join(tags), **values},
    )


async def decide(c: Console, request: Request, session: Session) -> Response:
    """A decision from the page. A refused one answers the page again with the reason and the
    person's own edit, never a redirect that loses their work."""
    approval_id = int(request.path_params["id"])
    form = await c.form(request, session)
    await _visible(c, session, approval_id)
    if form.get("decision") not in ("approve", "decline"):
        raise Refusal(400, "Choose Approve or Decline.")
    decision: Literal["approve", "decline"] = (
        "approve" if form["decision"] == "approve" else "decline"
    )
    # the edit form's fields count only when approving (browsers send line breaks as CRLF)
    text, title, tags = (form.get(k) if decision == "approve" else None for k in EDITED)
    edit = text.replace("\r\n", "\n") if text is not None else None
    change = Edit(
        title=title.replace("\r\n", "\n") if title is not None else None,
        tags=parse_tags(tags) if tags is not None else None,
    )
    kept = {f"raw_{k}": v for k, v in (("title", title), ("tags", tags)) if v is not None}
    try:
        result = await c.gw.desk.decide(
            approval_id,
            decision,
            Channel.CONSOLE,
            by=session.name,
            who=session.principal,
            text=edit,
            reason=one_line(form.get("reason", ""), 300),
            edit=change,
        )
    except PlatformError as exc:
        a, hold = await _visible(c, session, approval_id, held=True)
        return await _page(c, session, a, hold, edit, 409, error=shown(exc.message, 600), **kept)
    a, hold = await _visible(c, session, approval_id, held=True)
    if isinstance(result, Refused) and a.open_at(c.clock()):  # nothing sent: try again
        return await _page(c, session, a, hold, edit, 409, error=shown(result.reason, 1000), **kept)
    return await _page(c, session, a, hold, None, result=result.model_dump(mode="json"))


# -- hand-offs ------------------------------------------------------------------------


async def handoffs(c: Console, request: Request, session: Session) -> Response:
    await c.gw.desk.handoffs.sweep()  # one past its time is expired, never shown as waiting
    rows = await c.gw.records.run(StrikeStore.open_handoffs, c.owner(session))
    return c.render(
        "handoffs.html",
        session,
        rows=rows,
        handoff_ref=handoff_ref,
        expire_after=c.config.review.handoff_expire_after_s,
    )


async def handoff(c: Console, request: Request, session: Session) -> Response:
    """Close a hand-off with the link of what the person posted, or dismiss it (they will
    not post it: out of the queue, kept in history). Closing is acting: a member acts on
    their own hand-offs, the operator on any."""
    record_id = int(request.path_params["id"])
    form = await c.form(request, session)
    handoffs, who = c.gw.desk.handoffs, session.principal
    try:
        if request.url.path.endswith("/dismiss"):
            await handoffs.dismiss(record_id, session.name, who=who, channel=Channel.CONSOLE)
            return redirect("/handoffs")
        url = safe_url(form.get("url", ""))
        if not url:
            raise Refusal(400, "Paste the http(s) link of what you posted, then Close.")
        await handoffs.done(record_id, url, session.name, who=who, channel=Channel.CONSOLE)
    except PlatformError as exc:
        status = 404 if exc.kind is ErrorKind.NOT_FOUND else 409
        raise Refusal(status, f"{exc.message} Nothing changed.") from None
    return redirect(f"/history/{record_id}")


# -- history --------------------------------------------------------------------------


def _day(text: str, end: bool = False) -> float | None:
    try:
        day = calendar.timegm(time.strptime(text.strip(), "%Y-%m-%d"))
    except ValueError:
        return None
    return float(day + (86400 if end else 0))


def _filter(c: Console, session: Session, q: Any) -> tuple[HistoryFilter, dict[str, str]]:
    chosen = {k: str(q.get(k, ""))[:80] for k in ("platform", "status", "by", "from", "to")}
    status = StrikeStatus(chosen["status"]) if chosen["status"] in RECORDED else None
    principal = c.owner(session)
    if principal is None and chosen["by"]:
        principal = "" if chosen["by"] == "local" else chosen["by"]
    which = HistoryFilter(
        platform=chosen["platform"] if chosen["platform"] in c.gw.upstreams.names() else "",
        status=status,
        principal=principal,
        since=_day(chosen["from"]),
        until=_day(chosen["to"], end=True),
    )
    return which, chosen


async def history(c: Console, request: Request, session: Session) -> Response:
    which, chosen = _filter(c, session, request.query_params)
    before_text = request.query_params.get("before", "")
    before = int(before_text) if before_text.isdigit() else None
    rows = await c.gw.records.run(StrikeStore.history_page, which, before, PAGE_ROWS + 1)
    older = rows[PAGE_ROWS - 1].id if len(rows) > PAGE_ROWS else None
    keep = {k: v for k, v in chosen.items() if v}
    return c.render(
        "history.html",
        session,
        rows=rows[:PAGE_ROWS],
        chosen=chosen,
        keep=keep,
        older=older,
        platforms=c.gw.upstreams.names(),
        statuses=[str(s) for s in RECORDED],
        everyone=c.reader(session).everyone,
    )


async def record(c: Console, request: Request, session: Session) -> Response:
    record_id = int(request.path_params["id"])
    row = await c.gw.records.run(StrikeStore.get, record_id)
    if row is None or not c.reader(session).may_read(row.principal):
        raise Refusal(404, f"No record {record_id} that you may read.")
    decided = await c.gw.records.run(StrikeStore.approval_of, record_id)
    # what the model saw, each value as text
    context = [(str(k), v if isinstance(v, str) else repr(v)) for k, v in row.context.items()]
    return c.render(
        "record.html", session, r=row, approval=decided, context=context[:30], now=c.clock()
    )
