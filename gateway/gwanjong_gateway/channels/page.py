"""The one-approval page (URL-mode elicitation; docs/use/approval-page-and-app.md): a
`LocalPage` behind `web.Guard`. The 256-bit token in ``/approval/<id>/<token>`` is the only
secret, the page's own (`approvals.page_token`, never the card's), checked in constant time
against the record's hash; the decision is the whole chain again, at most one write.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastmcp.server.dependencies import get_context
from starlette.responses import HTMLResponse

from gwanjong_gateway import web
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules import approvals
from gwanjong_gateway.rules.approvals import Approval, Channel
from gwanjong_gateway.setup.secret_listener import LocalPage
from gwanjong_gateway.strike.desk import StrikeDesk
from gwanjong_gateway.strike.elicitation import can_url, input_key, modern_era
from gwanjong_gateway.strike.results import Declined, DryRun, Duplicate, Handoff, Posted, Refused
from gwanjong_shared.contract.errors import ErrorKind, PlatformError

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

log = logging.getLogger(__name__)
HERE = Path(__file__).parent
TEMPLATE = "one_approval.html"

NotifyFn = Callable[[], Awaitable[None]]
MAX_NOTICES = 1000
#: how long a link sent to a client decides its approval: a link is short-lived, like
#: the console's approval links (console/guard.py); the terminal and the console remain
LINK_S = 15 * 60.0
FAILED = (
    "Something went wrong: the write may or may not have happened. Do not approve again "
    "here; run `gwanjong review list` in a terminal to see how it stands."
)
GONE = (
    "This link is wrong, or its approval no longer exists. Run "
    "`gwanjong review list` in a terminal to see the approvals waiting."
)


class ApprovalPages(LocalPage):
    """The page of every approval, and the listener that serves them (one per gateway)."""

    name = "approval page"
    templates = HERE / "templates"
    template = TEMPLATE
    misdirected = 421  # a wrong Host: "open the link exactly as given"
    path = "/approval/{id:int}/{token}"
    methods = ("GET", "POST", "PUT", "PATCH", "DELETE")  # the page says 405 itself
    gone, failed = GONE, FAILED

    def __init__(self, desk: StrikeDesk, records: Records, revoked: Callable[[str], bool]) -> None:
        super().__init__()
        self.desk = desk
        self.records = records
        self.revoked = revoked  # whose links decide nothing (`Gateway.revoked`)
        # per process: a page from before a restart asks for a reload
        self._csrf_key = secrets.token_bytes(32)
        #: who to tell once an approval is decided (handshake-era URL elicitation)
        self._notify: dict[int, NotifyFn] = {}

    async def page_link(self, approval: Approval, token: str) -> str:
        """`gw.approval_page` (a `PageLink`): the link `McpAsker` sends a client that declared
        only URL-mode elicitation (the listener starts on first use). Once decided here, the
        client is told (`notifications/elicitation/complete`, handshake era)."""
        self.serve()
        notify = completion_notice(approval)
        if notify is not None:
            self._notify[approval.id] = notify
            while len(self._notify) > MAX_NOTICES:  # approvals never decided here: the oldest go
                del self._notify[next(iter(self._notify))]
        return f"{self.origin}/approval/{approval.id}/{token}"

    def csrf(self, approval_id: int, token: str) -> str:
        """The form's CSRF token: bound to this page (approval and link), this process."""
        msg = f"approval-page\x00{approval_id}\x00{token}".encode()
        return hmac.new(self._csrf_key, msg, hashlib.sha256).hexdigest()

    async def answer(self, request: Request) -> Response:
        approval_id, token = request.path_params["id"], request.path_params["token"]
        approval = await self._approval_for(approval_id, token)
        if approval is None:
            return await self._gone(request)
        now = self.desk.approving.clock()
        if approval.open_at(now) and now - approval.created_at > LINK_S:
            return self.say(410, "Link expired", expired(approval.id))
        if request.method == "GET":
            if approval.open_at(now):
                return self._show(200, approval, now, token)
            return self._show(200, approval, now, message=_already(approval, now))
        if request.method != "POST":
            return self.say(405, "Not allowed", "Only GET and POST.")
        kind = request.headers.get("content-type", "")
        if not kind.startswith("application/x-www-form-urlencoded"):
            return self.say(415, "Refused", "Send the form from its page.")
        pairs = await self.form(request, 8)
        return (
            pairs
            if not isinstance(pairs, list)
            else await self._submit(approval, token, pairs, now)
        )

    async def _approval_for(self, approval_id: int, token: str) -> Approval | None:
        """The approval a link names, if its token is that approval's (constant time)."""
        if approval_id >= 2**63 or len(token) > 86:  # no such row, and no such token
            return None
        approval = await self.records.run(StrikeStore.approval, approval_id)
        if approval is None or not approvals.token_fits(approval, token, Channel.PAGE):
            return None  # the card's token too: a model may read this page's link, never that
        return None if self.revoked(approval.principal) else approval

    def _show(
        self, status: int, approval: Approval, now: float, token: str = "", **values: Any
    ) -> Response:
        """``approval``'s page; with the link's ``token``, its form (while it is open)."""
        csrf = self.csrf(approval.id, token) if token else ""
        return HTMLResponse(one_approval_page(approval, now, csrf, **values), status_code=status)

    async def _submit(
        self, approval: Approval, token: str, pairs: list[tuple[str, str]], now: float
    ) -> Response:
        fields: dict[str, str] = {}
        for key, value in pairs:
            if key in fields:
                return self.say(400, "Refused", "A field was sent twice.")
            fields[key] = value
        if not web.form_token_ok(fields.get("csrf"), self.csrf(approval.id, token)):
            return self.say(403, "Refused", "This form is stale: reload the page and decide again.")
        decision = fields.get("decision")
        if decision not in ("approve", "decline"):
            return self.say(400, "Refused", "Choose Approve or Decline.")
        edit = None
        if decision == "approve" and "text" in fields:
            # browsers send a textarea's line breaks as CRLF; the text was sent with LF
            typed = fields["text"].replace("\r\n", "\n").strip()
            edit = None if typed == approval.text else typed
        try:  # already decided or expired: said as such, before anything runs
            opened = await self.desk.approving.open_for(approval.id, None, token, Channel.PAGE)
        except PlatformError as exc:
            await self._done(approval.id)
            return self._show(409, approval, now, message=exc.message)
        try:  # decided elsewhere from here on: the claim says so (a duplicate), not an error
            result = await self.desk.decide_open(
                opened,
                "approve" if decision == "approve" else "decline",
                Channel.PAGE,
                by=approval.principal,  # the token was the person's proof; whose approval it is
                text=edit,
            )
        except PlatformError as exc:
            fresh = await self.records.run(StrikeStore.approval, approval.id) or approval
            if fresh.open_at(now) and exc.kind is ErrorKind.INVALID_INPUT:
                # the edit was refused (empty, footer removed): the form again, with why
                return self._show(400, fresh, now, token, problem=exc.message, edit=edit)
            if not fresh.open_at(now):
                await self._done(approval.id)
            # decided meanwhile, or the write failed or its outcome is unknown: the message says
            return self._show(502, fresh, now, message=exc.message, failed=True)
        fresh = await self.records.run(StrikeStore.approval, approval.id) or approval
        if isinstance(result, Refused) and fresh.open_at(now):
            # refused but still waiting (blocked for now, or the edit refused): the form
            # again with why, and the person's own text
            return self._show(409, fresh, now, token, problem=result.reason, edit=edit)
        await self._done(approval.id)
        message, url, label = _outcome(result)
        log.info("approval page: approval %d decided (%s)", approval.id, decision)
        status = 409 if isinstance(result, Duplicate) else 200
        return self._show(status, fresh, now, message=message, url=url, label=label)

    async def _done(self, approval_id: int) -> None:
        notify = self._notify.pop(approval_id, None)
        if notify is not None:
            with contextlib.suppress(Exception):  # the client may be gone; the decision stands
                await notify()


def completion_notice(approval: Approval) -> NotifyFn | None:
    """Handshake era: tell the client the approval is decided (`notifications/elicitation/complete`).
    The stateless era has no session to tell: the client asks again."""
    try:
        ctx = get_context()
    except RuntimeError:  # not within a request
        return None
    if modern_era(ctx) or not can_url(ctx):
        return None
    session, elicitation_id = ctx.session, input_key(approval)

    async def notify() -> None:
        await session.send_elicit_complete(elicitation_id)

    return notify


def _already(approval: Approval, now: float) -> str:
    return f"This approval was already {approval.said(now)}."


def _outcome(result: object) -> tuple[str, str, str]:
    """What this decision did, in plain words, and a link (with its label) if any."""
    if isinstance(result, Posted):
        return "Approved and sent.", result.url or "", "Posted:"
    if isinstance(result, Declined):
        return "Declined: nothing was sent.", "", ""
    if isinstance(result, Duplicate):  # e.g. a second tab's click: the first one wrote
        return f"Nothing more was sent: {result.reason}", "", ""
    if isinstance(result, Refused):
        return f"Approved, but gwanjong did not send it: {result.reason}", "", ""
    if isinstance(result, DryRun):
        return f"Approved, but nothing was sent: {result.reason}", "", ""
    if isinstance(result, Handoff):
        return f"Approved, but a person must post it: {result.reason}", result.open or "", "Open:"
    return "Decided.", "", ""


def one_approval_page(
    approval: Approval,
    now: float,
    csrf: str = "",
    *,
    problem: str = "",
    edit: str | None = None,
    message: str = "",
    url: str = "",
    label: str = "Posted:",
    failed: bool = False,
) -> str:
    """With ``csrf``, a pending approval: the facts, the exact text, an edit box (``edit``:
    the person's own, kept when a decision was refused, with the ``problem``), Approve and
    Decline. Without, one no longer waiting: ``message`` says how it stands (or what this
    very decision did, ``url`` what it made)."""
    page = web.templates(HERE / "templates").get_template(TEMPLATE)
    return page.render(
        title=f"gwanjong: approval {approval.id}",
        a=approval,
        open=approval.open_at(now),
        state=str(approval.status_at(now)),
        said=approval.said(now),
        created=approvals.iso(approval.created_at),
        expires=approvals.iso(approval.expires_at),
        csrf=csrf,
        problem=problem,
        edit=approval.text if edit is None else edit,
        message=message,
        url=url,
        label=label,
        mood="error" if failed else "done",
    )


def expired(approval_id: int) -> str:
    return (
        f"This link was good for {LINK_S / 60:g} minutes and has expired; it decides "
        f"nothing now. Approval a{approval_id} still waits for you: run "
        f"`gwanjong review show a{approval_id}` in a terminal, or open the "
        "console (`gwanjong console`)."
    )
