"""Which pending hand-off a `confirm_handoff` means: the one named by its record (the
`record` of the hand-off answer) or by its action, else the only one of the opportunity.
More than one that fits is never guessed: the answer lists them (`choices`)."""

from __future__ import annotations

from gwanjong_gateway.rules.ledger import Strike, StrikeAction
from gwanjong_gateway.strike.results import Choice, Duplicate, Refused
from gwanjong_gateway.strike.text import earlier_view
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.untrusted import one_line

#: how a confirm_handoff names its hand-off: a record id, an action, or nothing
Which = int | StrikeAction | None


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


def ambiguous(opportunity: str, which: Which, rows: list[Strike]) -> Refused:
    """More than one hand-off fits: nothing is recorded, the choices are the answer."""
    named = f" {which}" if isinstance(which, StrikeAction) else ""
    return Refused(
        reason=(
            f"{len(rows)}{named} hand-offs of {opportunity} are pending ({_listing(rows)}); "
            f"nothing was recorded. Say which one the person posted: {_call(opportunity, '<record>')}."
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
    opportunity: str, which: Which, pending: list[Strike], named: Strike | None
) -> PlatformError:
    """Why no pending hand-off fits, and what to call instead. ``named``: the record
    ``which`` names, if it exists."""
    if isinstance(which, StrikeAction):
        why = f"There is no pending {which} hand-off for {opportunity}."
    elif which is None:
        why = f"There is no pending hand-off for {opportunity}."
    elif named is None:
        why = f"There is no record {which}."
    elif named.opportunity != opportunity:
        why = f"Record {which} is not a hand-off of {opportunity} (it is a {named.action} on {named.opportunity or 'another post'})."
    else:
        why = f"Record {which} is {named.status}, not a pending hand-off."
    if pending:
        first = pending[0].id
        then = f" Pending here: {_listing(pending)}; e.g. {_call(opportunity, str(first))}."
    else:
        then = " strike with action='comment' (or 'post') first."
    return PlatformError(ErrorKind.INVALID_INPUT, why + then)
