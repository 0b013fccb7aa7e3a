"""A person did it: `confirm_handoff` records a pending hand-off as posted
(`HandOffs.confirm`).

Which hand-off it means: the one named by its record (the `record` of the hand-off
answer) or by its action, else the only one of the opportunity. More than one that fits
is never guessed: the answer lists them (`choices`). Who confirmed it (the signed-in
caller) is its own column, `confirmed_by`. Imports `settle` and `text` of strike.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from urllib.parse import urlsplit

from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import Channel
from gwanjong_gateway.rules.ledger import Strike, StrikeAction, StrikeStatus
from gwanjong_gateway.scout.state import DraftContext
from gwanjong_gateway.strike.results import Choice, Duplicate, Posted, Refused, StrikeResult
from gwanjong_gateway.strike.settle import Settler
from gwanjong_gateway.strike.text import earlier_view
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.untrusted import one_line

#: how a confirm_handoff names its hand-off: a record id, an action, or nothing
Which = int | StrikeAction | None

#: where a person closed a hand-off, in the words of its policy line
_FROM = {
    Channel.TERMINAL: "the terminal",
    Channel.PAGE: "the approval page",
    Channel.CONSOLE: "the console",
    Channel.APP: "an app card",
    Channel.ELICITATION: "the client's dialog",
}


def web_link(url: str) -> str:
    """``url`` when it is an http(s) link with a host; "" otherwise."""
    url = url.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    ok = (
        parts.scheme in ("http", "https")
        and bool(parts.hostname)
        and not any(c.isspace() or ord(c) < 32 for c in url)
    )
    return url if ok else ""


def pick(pending: list[Strike], which: Which) -> Strike | list[Strike]:
    """The hand-off meant, or every one that fits when that is not exactly one."""
    if isinstance(which, StrikeAction):
        fitting = [r for r in pending if r.action == which]
    elif which is None:
        fitting = pending
    else:
        fitting = [r for r in pending if r.id == which]
    return fitting[0] if len(fitting) == 1 else fitting


def choice(row: Strike) -> Choice:
    """One pending hand-off, as the model is shown it to choose (what it lacks is left out)."""
    return Choice(
        record=row.id,
        action=str(row.action),
        open=row.target_url or None,
        title=one_line(row.title, 80) or None,
        text=one_line(row.content, 80) or None,
    )


def _call(opportunity: str, handoff: str) -> str:
    return (
        f"strike(opportunity_id={opportunity!r}, action='confirm_handoff', handoff={handoff}, "
        "content=<the URL of their post>)"
    )


def _listing(rows: list[Strike]) -> str:
    return ", ".join(f"record {r.id} ({r.action})" for r in rows)


def ambiguous(opportunity: str, which: Which, rows: list[Strike], ref: str = "") -> Refused:
    """More than one hand-off fits: nothing is recorded, the choices are the answer.
    ``ref``: the id the model calls the opportunity by (its handle)."""
    named = f" {which}" if isinstance(which, StrikeAction) else ""
    return Refused(
        reason=(
            f"{len(rows)}{named} hand-offs of {ref or opportunity} are pending ({_listing(rows)}); "
            f"nothing was recorded. Say which one the person posted: {_call(ref or opportunity, '<record>')}."
        ),
        choices=[choice(r) for r in rows],
    )


def already(row: Strike) -> Duplicate:
    """The named record was confirmed (or posted) before: never recorded twice."""
    return Duplicate(
        reason=f"Record {row.id} ({row.action}) is already recorded as posted"
        f"{' at ' + row.result_url if row.result_url else ''}; nothing to confirm.",
        earlier=earlier_view(row),
    )


def none_fits(
    opportunity: str, which: Which, pending: list[Strike], named: Strike | None, ref: str = ""
) -> PlatformError:
    """Why no pending hand-off fits, and what to call instead. ``named``: the record
    ``which`` names, if it exists; ``ref``: the opportunity's handle, for the hint."""
    shown = ref or opportunity
    if isinstance(which, StrikeAction):
        why = f"There is no pending {which} hand-off for {shown}."
    elif which is None:
        why = f"There is no pending hand-off for {shown}."
    elif named is None:
        why = f"There is no record {which}."
    elif named.opportunity != opportunity:
        where = named.target_url or "another post"
        why = f"Record {which} is not a hand-off of {shown} (it is a {named.action} on {where})."
    else:
        why = f"Record {which} is {named.status}, not a pending hand-off."
    if pending:
        first = pending[0].id
        then = f" Pending here: {_listing(pending)}; e.g. {_call(ref or opportunity, str(first))}."
    else:
        then = " strike with action='comment' (or 'post') first."
    return PlatformError(ErrorKind.INVALID_INPUT, why + then)


class HandOffs:
    """The hand-offs in the record: a person posted one (`confirm` for the model's call,
    `done` for the person's own word)."""

    def __init__(self, records: Records, settler: Settler, clock: Callable[[], float]) -> None:
        self.records = records
        self.settler = settler  # reads the platform back when no URL is given
        self.clock = clock

    async def confirm(
        self, ctx: DraftContext, url: str, which: Which = None, by: str | None = None
    ) -> StrikeResult:
        """Record as posted by a person the hand-off ``which`` names (its record or its
        action; None: the only one pending here). ``by``: the signed-in caller."""
        opportunity = ctx.opportunity.id
        pending = await self.records.run(
            StrikeStore.pending_handoffs, opportunity, ctx.opportunity.post.platform
        )
        if by is not None:  # signed in: only the caller's own hand-offs, as if no other existed
            pending = [r for r in pending if r.principal == by]
        picked = pick(pending, which)
        if isinstance(picked, list) and picked:
            return ambiguous(opportunity, which, picked, ctx.opportunity.ref)
        if isinstance(picked, list):
            named = None
            if isinstance(which, int):
                named = await self.records.run(StrikeStore.get, which)
                if named is not None and by is not None and named.principal != by:
                    named = None  # another's record answers as a missing one
            if (
                named is not None
                and named.opportunity == opportunity
                and named.status == StrikeStatus.POSTED
            ):
                return already(named)
            raise none_fits(opportunity, which, pending, named, ctx.opportunity.ref)
        row = picked
        link = url.strip() if url.strip().startswith("http") else ""
        if not link:
            link = (await self.settler.read_back(row)).url
        confirmed = await self._posted(
            row, link, by or "", lambda when: f"hand-off confirmed {when}Z"
        )
        if confirmed is None:  # another call confirmed it meanwhile
            earlier = await self.records.run(StrikeStore.get, row.id)
            return already(earlier or row)
        return Posted(
            url=link or None,
            record=confirmed.id,
            action=str(confirmed.action),
            approver="human",
            reason="Recorded as posted by a person.",
        )

    async def done(
        self,
        record_id: int,
        url: str,
        by: str,
        who: str | None = None,
        channel: Channel = Channel.TERMINAL,
    ) -> Posted:
        """The person posted hand-off ``record_id`` at ``url``: exactly that record is
        closed as posted (never "the latest of the opportunity"). ``by``: who, for the
        audit; ``who``: the signed-in principal (None: the operator, who may close any).
        Raises PlatformError: not an http(s) URL, no such hand-off (another person's
        answers as missing), or already recorded."""
        link = web_link(url)
        if not link:
            raise PlatformError(
                ErrorKind.INVALID_INPUT,
                f"--url must be the http(s) link of what was posted, not {one_line(url, 80)!r}.",
            )
        row = await self.records.run(StrikeStore.get, record_id)
        if row is not None and who is not None and row.principal != who:
            row = None  # another's record answers as a missing one (ids are no oracle)
        if row is None:
            raise PlatformError(
                ErrorKind.NOT_FOUND,
                f"There is no hand-off {record_id}; `gwanjong review list` shows those waiting.",
            )
        if row.status is StrikeStatus.POSTED:
            raise PlatformError(ErrorKind.INVALID_INPUT, _already_recorded(row))
        if row.status is not StrikeStatus.HANDOFF:
            raise PlatformError(
                ErrorKind.INVALID_INPUT,
                f"Record {row.id} is {row.status}, not a hand-off waiting for a person; "
                "nothing was recorded.",
            )
        closed = await self._posted(
            row,
            link,
            by,
            lambda when: (
                f"posted by a person, closed from {_FROM[channel]} by "
                f"{by or 'the local user'} at {when}Z"
            ),
        )
        if closed is None:  # closed by someone else meanwhile
            earlier = await self.records.run(StrikeStore.get, row.id)
            raise PlatformError(ErrorKind.INVALID_INPUT, _already_recorded(earlier or row))
        return Posted(
            url=link,
            record=closed.id,
            action=str(closed.action),
            approver="human",
            reason=f"Hand-off {closed.id} recorded as posted by a person.",
        )

    async def _posted(
        self, row: Strike, link: str, by: str, line: Callable[[str], str]
    ) -> Strike | None:
        """Record hand-off ``row`` as posted at ``link`` by ``by``, with the policy ``line``
        (given the time); None when someone recorded it meanwhile."""
        now = self.clock()
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(now))
        return await self.records.run(
            StrikeStore.confirm_handoff,
            row.id,
            approver="human",
            result_url=link,
            policy=[*row.policy, line(when)],
            confirmed_by=by,
            now=now,
        )


def _already_recorded(row: Strike) -> str:
    at = f" at {row.result_url}" if row.result_url else ""
    return f"Hand-off {row.id} is already recorded as posted{at}; nothing changed."
