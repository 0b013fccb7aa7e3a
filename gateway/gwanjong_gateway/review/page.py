"""The one-approval page (URL-mode elicitation): a person reads the exact text of one
pending approval and approves (optionally edited) or declines it, in a browser.

Served like the credential page (setup/secret_listener): 127.0.0.1 only, a random port,
started on first use on the gateway's event loop; the Host header must be that address
(DNS rebinding), a POST from any other Origin is refused, each form carries a CSRF token
bound to its page, nothing is cached, framed or loaded from elsewhere. The link is
``/approval/<id>/<token>``: the 256-bit one-time token is the only secret, checked in
constant time against the record's hash (here for GET, by `StrikeDesk.decide` for POST),
so a link keeps working for as long as its approval waits, even across a restart of the
page. The decision itself is `StrikeDesk.decide(..., Channel.PAGE, token=...)`: the whole
chain again, at most one write.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import re
import secrets
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qsl

from fastmcp.server.dependencies import get_context

from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.review import html
from gwanjong_gateway.rules import approvals
from gwanjong_gateway.rules.approvals import Approval, Channel
from gwanjong_gateway.setup.loopback import LoopbackPage, Reply, Request
from gwanjong_gateway.strike.approval import can_url, input_key, modern_era
from gwanjong_gateway.strike.desk import StrikeDesk
from gwanjong_gateway.strike.results import Declined, DryRun, Duplicate, Handoff, Posted, Refused
from gwanjong_shared.contract.errors import ErrorKind, PlatformError

log = logging.getLogger(__name__)

NotifyFn = Callable[[], Awaitable[None]]
MAX_NOTICES = 1000
#: /approval/<id>/<token> (the token: url-safe base64 of 24 bytes or more)
_PATH = re.compile(r"^/approval/([0-9]{1,18})/([A-Za-z0-9_-]{32,86})$")
#: how long a link sent to a client decides its approval: a link is short-lived, like
#: the console's approval links (console/guard.py); the terminal and the console remain
LINK_S = 15 * 60.0


class ApprovalPages(LoopbackPage):
    """The page of every approval, and the listener that serves them (one per gateway)."""

    name = "approval page"
    failed = (
        "<p>Something went wrong: the write may or may not have happened. Do not approve again "
        "here; run <code>gwanjong review list</code> in a terminal to see how it stands.</p>"
    )

    def __init__(self, desk: StrikeDesk, records: Records) -> None:
        super().__init__()
        self.desk = desk
        self.records = records
        self._csrf_key = secrets.token_bytes(
            32
        )  # per process: a page from before a restart asks for a reload
        #: who to tell once an approval is decided (handshake-era URL elicitation)
        self._notify: dict[int, NotifyFn] = {}

    async def page_link(self, approval: Approval, token: str) -> str:
        """`gw.approval_page` (a `PageLink`): the link `McpAsker` sends a client that
        declared only URL-mode elicitation, with the completion notice of this request."""
        return await self.link(approval, token, completion_notice(approval))

    async def link(self, approval: Approval, token: str, notify: NotifyFn | None = None) -> str:
        """The page of ``approval`` (the listener starts on first use). ``notify`` is
        awaited once it is decided here (`notifications/elicitation/complete`)."""
        await self.serve()
        if notify is not None:
            self._notify[approval.id] = notify
            while len(self._notify) > MAX_NOTICES:  # approvals never decided here: the oldest go
                del self._notify[next(iter(self._notify))]
        return f"{self.origin}/approval/{approval.id}/{token}"

    def csrf(self, approval_id: int, token: str) -> str:
        """The form's CSRF token: bound to this page (approval and link), this process."""
        msg = f"approval-page\x00{approval_id}\x00{token}".encode()
        return hmac.new(self._csrf_key, msg, hashlib.sha256).hexdigest()

    def page(self, title: str, body: str) -> str:
        return html.page(title, body)

    async def route(self, request: Request, reader: asyncio.StreamReader) -> Reply:
        found = await self._approval_for(request.target)
        if found is None:
            return Reply(404, html.page("Link not valid", _GONE))
        approval, token = found
        now = self.desk.reviews.clock()
        if approval.open_at(now) and now - approval.created_at > LINK_S:
            return Reply(410, html.page("Link expired", _expired(approval.id)))
        if request.method == "GET":
            return self._show(approval, token, now)
        if request.method != "POST":
            return self.refused(405, "Not allowed", "Only GET and POST.")
        return await self._submit(approval, token, await self.form(request, reader), now)

    async def _approval_for(self, target: str) -> tuple[Approval, str] | None:
        """The approval a link names, if its token is that approval's (constant time)."""
        match = _PATH.match(target)
        if match is None:
            return None
        approval_id, token = int(match.group(1)), match.group(2)
        approval = await self.records.run(StrikeStore.approval, approval_id)
        if approval is None or not hmac.compare_digest(
            approvals.token_hash(token), approval.token_hash
        ):
            return None
        return approval, token

    def _show(self, approval: Approval, token: str, now: float) -> Reply:
        if approval.open_at(now):
            return Reply(200, html.review_page(approval, now, self.csrf(approval.id, token)))
        return Reply(200, html.decided_page(approval, now, _already(approval, now)))

    async def _submit(self, approval: Approval, token: str, body: str, now: float) -> Reply:
        fields: dict[str, str] = {}
        for key, value in parse_qsl(body, keep_blank_values=True, max_num_fields=8):
            if key in fields:
                return Reply(400, html.page("Refused", "<p>A field was sent twice.</p>"))
            fields[key] = value
        if not hmac.compare_digest(fields.get("csrf", ""), self.csrf(approval.id, token)):
            return Reply(
                403,
                html.page(
                    "Refused", "<p>This form is stale: reload the page and decide again.</p>"
                ),
            )
        decision = fields.get("decision")
        if decision not in ("approve", "decline"):
            return Reply(400, html.page("Refused", "<p>Choose Approve or Decline.</p>"))
        edit = None
        if decision == "approve" and "text" in fields:
            # browsers send a textarea's line breaks as CRLF; the text was sent with LF
            typed = fields["text"].replace("\r\n", "\n").strip()
            edit = None if typed == approval.text else typed
        try:  # already decided or expired: said as such, before anything runs
            await self.desk.reviews.open_for(approval.id, None, token)
        except PlatformError as exc:
            await self._decided(approval.id)
            return Reply(409, html.decided_page(approval, now, exc.message))
        try:
            result = await self.desk.decide(
                approval.id,
                "approve" if decision == "approve" else "decline",
                Channel.PAGE,
                by=approval.principal,
                who=None,  # the token is the person's proof; `by` names whose approval it is
                token=token,
                text=edit,
            )
        except PlatformError as exc:
            fresh = await self.records.run(StrikeStore.approval, approval.id) or approval
            if fresh.open_at(now) and exc.kind is ErrorKind.INVALID_INPUT:
                # the edit was refused (empty, footer removed): the form again, with why
                return Reply(
                    400,
                    html.review_page(fresh, now, self.csrf(fresh.id, token), exc.message, edit),
                )
            if not fresh.open_at(now):
                await self._decided(approval.id)
            # decided meanwhile, or the write failed or its outcome is unknown: the message says
            return Reply(502, html.decided_page(fresh, now, exc.message, failed=True))
        fresh = await self.records.run(StrikeStore.approval, approval.id) or approval
        if isinstance(result, Refused) and fresh.open_at(now):
            # refused but still waiting (blocked for now, or the edit refused): the form
            # again with why, and the person's own text
            page = html.review_page(fresh, now, self.csrf(fresh.id, token), result.reason, edit)
            return Reply(409, page)
        await self._decided(approval.id)
        message, url, label = _outcome(result)
        log.info("approval page: approval %d decided (%s)", approval.id, decision)
        status = 409 if isinstance(result, Duplicate) else 200
        return Reply(status, html.decided_page(fresh, now, message, url, label))

    async def _decided(self, approval_id: int) -> None:
        notify = self._notify.pop(approval_id, None)
        if notify is not None:
            with contextlib.suppress(Exception):  # the client may be gone; the decision stands
                await notify()


def completion_notice(approval: Approval) -> NotifyFn | None:
    """In the handshake era, a client given the link by URL-mode elicitation is told when
    the approval is decided (`notifications/elicitation/complete`, with the elicitation id
    `McpAsker` used). The stateless era has no session to tell: the client asks again."""
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
    state = approval.status_at(now)
    by = f" by {approval.decided_by}" if approval.decided_by else ""
    via = f" via {approval.channel}" if approval.channel else ""
    when = f" at {approvals.iso(approval.decided_at)}" if approval.decided_at else ""
    if state is approvals.ApprovalStatus.EXPIRED:
        return f"This approval expired at {approvals.iso(approval.expires_at)}: nothing was sent."
    return f"This approval was already {state}{by}{via}{when}: nothing more is sent."


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


def _expired(approval_id: int) -> str:
    return (
        f"<p>This link was good for {LINK_S / 60:g} minutes and has expired; it decides "
        f"nothing now. Approval a{approval_id} still waits for you: run "
        f"<code>gwanjong review show a{approval_id}</code> in a terminal, or open the "
        "console (<code>gwanjong console</code>).</p>"
    )


_GONE = (
    "<p>This link is wrong, or its approval no longer exists. Run "
    "<code>gwanjong review list</code> in a terminal to see the approvals waiting.</p>"
)
