"""strike: the final text's checks that need no record, then the desk's whole chain; the
answer as the caller may see it, with the approval card where the client shows one."""

from __future__ import annotations

from typing import Annotated, Literal

from fastmcp import Context
from fastmcp.exceptions import ToolError
from fastmcp.tools import ToolResult
from mcp.types import InputRequiredResult
from pydantic import AfterValidator

from gwanjong_gateway.channels.apps import with_card
from gwanjong_gateway.rules.ledger import StrikeAction
from gwanjong_gateway.scout.state import Workflow
from gwanjong_gateway.strike import elicitation
from gwanjong_gateway.strike.results import StrikeResult
from gwanjong_gateway.strike.wording import unexpected
from gwanjong_gateway.team.auth import principal_name
from gwanjong_gateway.team.privacy import shown_to
from gwanjong_gateway.tools.served import Served
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.kit.mcp_errors import one_error

Action = Literal["comment", "post", "upvote", "confirm_handoff"]


def _a_row(number: int) -> int:
    if abs(number) >= 2**63:  # past SQLite's INTEGER: no such record, not an OverflowError
        raise ValueError(number)
    return number


#: which hand-off a confirm_handoff records; a bad one is one error saying what to send, not
#: one per branch of the union (the validators leave the input schema as it is)
Handoff = Annotated[
    Annotated[int, AfterValidator(_a_row)] | Literal["comment", "post", "upvote"] | None,
    one_error(
        "send the hand-off's record number (or its action: comment, post, upvote), or leave "
        "handoff out"
    ),
]


async def strike(
    served: Served,
    ctx: Context,
    state: Workflow,
    opportunity_id: str,
    action: Action,
    content: str,
    title: str,
    handoff: Handoff,
) -> StrikeResult | InputRequiredResult | ToolResult:
    gw = served.gw
    context = state.contexts[opportunity_id.strip()]  # drafted: the pipeline checked
    if handoff is not None and action != "confirm_handoff":
        raise PlatformError(
            ErrorKind.INVALID_INPUT,
            f"handoff names the hand-off that action='confirm_handoff' records; leave it out for action={action!r}.",
        )
    if action in ("comment", "post") and not content.strip():
        raise PlatformError(
            ErrorKind.INVALID_INPUT, f"content is empty: write the {action} text first."
        )
    if (
        action == "post"
        and not title.strip()
        and context.capabilities is not None
        and "title" in context.capabilities.limits
    ):
        raise PlatformError(
            ErrorKind.INVALID_INPUT, f"A {context.opportunity.post.platform} post needs a title."
        )
    asker = elicitation.McpAsker(ctx, served.config.review, gw.mono, gw.approval_page)
    try:
        with gw.records.one_wait():  # a frozen record costs strike one deadline
            answer = await gw.desk.strike(
                context,
                action,
                content,
                title.strip(),
                asker,
                by=principal_name(),
                handoff=StrikeAction(handoff) if isinstance(handoff, str) else handoff,
            )
            shown = await shown_to(served.reader(), answer, gw.records)
            return await with_card(ctx, shown, gw.records)
    except elicitation.AskFirst as first:
        return first.result
    except ToolError:
        raise
    except Exception as exc:  # FastMCP masks these before middleware: word them here
        raise unexpected(exc) from None
