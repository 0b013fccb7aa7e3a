"""What strike shows: the duplicate answer, the would-be call, an unexpected error."""

from __future__ import annotations

import logging
from typing import Any

from gwanjong_gateway.rules.ledger import UNSETTLED, Strike, StrikeAction
from gwanjong_gateway.rules.outgoing import Outgoing
from gwanjong_gateway.strike.results import Duplicate, Earlier
from gwanjong_shared.contract.errors import ErrorKind, PlatformError

log = logging.getLogger(__name__)


def duplicate(action: StrikeAction, earlier: Strike, check_in: int | None = None) -> Duplicate:
    """Answer for a target held by an earlier claim; never claims more than is known."""
    if earlier.status in UNSETTLED:
        if check_in is None:
            why = (
                f"This {action} may already be written (record {earlier.id}) and cannot be read "
                f"back; gwanjong will not risk a second one. A person must check the platform, "
                f"then run `gwanjong history --resolve {earlier.id} --as posted|failed`."
            )
        else:
            why = (
                f"This {action} may already be written (record {earlier.id}); checking again in "
                f"{check_in} s. gwanjong will not send it a second time meanwhile."
            )
        shown = earlier_view(earlier)
        return Duplicate(reason=why, earlier=shown, retry_after=check_in, holder=earlier.principal)
    return Duplicate(
        reason=f"Already done: this {action} was {earlier.status} earlier (record {earlier.id}); "
        "gwanjong never acts on the same target (or the same post text) twice.",
        earlier=earlier_view(earlier),
        holder=earlier.principal,
    )


def taken_by_another(answer: Duplicate) -> Duplicate:
    """``answer`` as a member who does not hold the target may see it: that it is taken,
    with no record id, text, reason or link of the member who does (theirs to read)."""
    return Duplicate(
        reason=(
            f"Already taken: another member of this team has a "
            f"{answer.earlier.action if answer.earlier else 'write'} on this target (or the same "
            "post text) recorded or in progress, and gwanjong never acts on one target twice. "
            "Pick another opportunity."
        ),
        retry_after=answer.retry_after,
    )


def earlier_view(row: Strike) -> Earlier:
    """The earlier row a duplicate answer shows."""
    return Earlier.model_validate(row.public())


def would(sent: Outgoing) -> dict[str, Any]:
    """The platform call a dry run would make: `Outgoing.arguments`, the very call sent."""
    args = sent.arguments()
    if not args.get("tags", True):
        del args["tags"]  # the model never sets tags: a person adds them when approving
    return {
        "platform": sent.platform,
        "tool": sent.tool,
        "arguments": args,
        "target": sent.target_url or None,
        "destination": sent.destination or None,
        "sent_with": sent.sent_with or None,
    }


def unexpected(exc: Exception) -> PlatformError:
    """An exception strike did not expect, as a kind-prefixed answer (logged with its
    traceback on stderr, never shown to the model)."""
    log.error("strike failed unexpectedly", exc_info=exc)
    return PlatformError(
        ErrorKind.UNAVAILABLE,
        f"strike stopped on an unexpected error ({type(exc).__name__}). A write already sent "
        "stays recorded and holds its target until it is read back; call status() and try "
        "again in a minute.",
    )
