"""Asking the person about a pending approval through the client, in both protocol eras.

The approval is in the record before the client is asked, so whatever the dialog does it
stays pending; only a considered answer decides it here. 2025-11-25 pushes
`elicitation/create` mid-call; 2026-07-28 returns an input-required result and the retried
call brings the answer (`answer_for`). URL-mode-only clients get the approval's page link.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from fastmcp import Context
from mcp.types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequiredResult,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from gwanjong_gateway.config import ReviewSection
from gwanjong_gateway.rules import approvals
from gwanjong_gateway.rules.approvals import Approval, Channel
from gwanjong_gateway.strike.attempt import Ask
from gwanjong_shared.contract.visible import line, link, quoted, show

log = logging.getLogger(__name__)


class AskFirst(Exception):
    """Stateless era, first round: the tool must return this input-required result."""

    def __init__(self, result: InputRequiredResult) -> None:
        super().__init__("input required")
        self.result = result


#: The form: the decision as two labelled choices, never a bare checkbox.
FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decision": {
            "type": "string",
            "title": "Your decision",
            "oneOf": [
                {"const": "approve", "title": "Approve: publish exactly this text"},
                {"const": "decline", "title": "Decline: send nothing"},
            ],
        }
    },
    "required": ["decision"],
}

#: A page link for an approval (the URL carries the page's token), when pages are served.
PageLink = Callable[[Approval, str], Awaitable[str]]


def _barred(text: str) -> str:
    """Each line behind the bar: no line of the model's can pass for the dialog's own."""
    return "\n".join(quoted(text))


def message(approval: Approval) -> str:
    """The dialog's text: what, where, as whom, then the whole write (title, tags, the
    exact text), in the terminal form of `contract.visible` (clients show it in a terminal
    or a dialog: every hidden or steering character is a visible mark, never raw). The
    title's and the text's lines are quoted behind a bar, as `gwanjong review show` does."""
    write = approval.write
    head = f"gwanjong asks before it writes in your name: {line(approval.where(), 2400)}."
    head += f"\nSent as: {line(write.account, 100) or 'our account'}, {write.visibility}"
    head += "".join(f"\nAlso sent: {line(a, 400)}" for a in write.also())
    head += "".join(f"\nLink: {link(u)}" for u in write.links)  # where each one leads
    title, body = show(approval.title), show(approval.text)
    tags = [show(t, fold=False) for t in write.tags]
    if approval.title:
        first, _, rest = title.text.partition("\n")
        head += f"\nTitle: {first}" + (f"\n{_barred(rest)}" if rest else "")
    if approval.action == "post":
        head += f"\nTags: {', '.join(t.text for t in tags) or '(none)'}"
    warnings = [f"WARNING (title): {title.warning()}"] if title.hidden else []
    warnings += [f"WARNING (tag {t.text}): {t.warning()}" for t in tags if t.hidden]
    if body.hidden:
        warnings.append(f"WARNING: {body.warning()}")
    warn = "".join(f"\n\n{w}" for w in warnings)
    size = f"{approval.size()}, disclosure footer included"
    return (
        f"{head}{warn}\n\nThis exact text will be sent ({size}):\n\n"
        f"{_barred(body.text) if body.text else '(no text: an upvote)'}\n\n"
        f"Approve to publish it, or decline. Approval {approval.id} also waits for you in "
        "`gwanjong review` until it expires."
    )


def _elicitation(ctx: Context) -> Any:
    session = ctx.session if ctx.request_context is not None else None
    return getattr(getattr(session, "client_capabilities", None), "elicitation", None)


def can_form(ctx: Context) -> bool:
    """The client declared form-mode elicitation (an empty `elicitation: {}` means form)."""
    elicitation = _elicitation(ctx)
    if elicitation is None:
        return False
    form, url = getattr(elicitation, "form", None), getattr(elicitation, "url", None)
    return form is not None or url is None


def can_url(ctx: Context) -> bool:
    elicitation = _elicitation(ctx)
    return elicitation is not None and getattr(elicitation, "url", None) is not None


def modern_era(ctx: Context) -> bool:
    """Whether this request came in the stateless (2026-07-28) protocol era."""
    return (
        ctx.request_context is not None
        and ctx.request_context.protocol_version in MODERN_PROTOCOL_VERSIONS
    )


def input_key(approval: Approval) -> str:
    return f"approval-{approval.id}"


@dataclass(eq=False)
class McpAsker:
    """Asks through the calling MCP client, as `[review]` says."""

    ctx: Context
    review: ReviewSection
    mono: Callable[[], float]
    page: PageLink | None = None

    def _judge(self, action: str, choice: object, seconds: float | None) -> Ask:
        """A dialog's answer: a decision only when a person could have made it."""
        if action == "accept" and choice == "approve":
            return Ask("approve")
        if action in ("accept", "decline"):
            if seconds is not None and seconds < self.review.min_read_s:
                return Ask(
                    "pending",
                    f"The client declined the dialog after {seconds:.1f} s, faster than a person "
                    "reads it (some clients decline every dialog): the approval stays pending.",
                )
            return Ask("decline", "The person declined in the dialog.")
        return Ask(
            "pending", "The dialog was closed without a decision: the approval stays pending."
        )

    def answer_for(self, approval: Approval, now: float) -> Ask | None:
        # a round may carry any answer: one counts only to the dialog `ask` opens here
        if not modern_era(self.ctx) or self.review.ask == "queue":
            return None
        responses = self.ctx.input_responses
        answer = responses.get(input_key(approval)) if responses else None
        if not isinstance(answer, ElicitResult) or not (can_form(self.ctx) or can_url(self.ctx)):
            return None
        content, action = answer.content or {}, answer.action
        if not can_form(self.ctx) or (action == "accept" and "decision" not in content):
            return Ask("pending", "The person was given the approval's page.", Channel.PAGE)
        # how long the person had: from the approval's creation to this second round
        return self._judge(action, content.get("decision"), max(0.0, now - approval.created_at))

    async def ask(self, approval: Approval, token: str) -> Ask:
        if self.review.ask == "queue":
            return Ask("pending", '[review] ask = "queue": no dialog was shown.')
        if can_form(self.ctx):
            return await self._form(approval)
        if can_url(self.ctx) and self.page is not None:
            return await self._url(approval, token)
        return Ask("pending", "This client shows no approval dialog.")

    def _ask_first(
        self, approval: Approval, params: ElicitRequestFormParams | ElicitRequestURLParams
    ) -> None:
        """Stateless era: raise the input-required result asking for ``params``."""
        if modern_era(self.ctx):
            request = ElicitRequest(method="elicitation/create", params=params)
            key = input_key(approval)
            raise AskFirst(
                InputRequiredResult(result_type="input_required", input_requests={key: request})
            )

    async def _form(self, approval: Approval) -> Ask:
        text = message(approval)
        self._ask_first(approval, ElicitRequestFormParams(message=text, requested_schema=FORM))
        started = self.mono()
        try:
            result = await self.ctx.session.elicit(
                message=text, requested_schema=FORM, related_request_id=self.ctx.request_id
            )
        except Exception as exc:  # the client answered with an error: not a decision
            log.warning("the approval dialog failed: %s", type(exc).__name__)
            return Ask(
                "pending",
                f"The client could not show the approval dialog ({type(exc).__name__}): the "
                "approval stays pending.",
            )
        content: dict[str, Any] = result.content or {}
        return self._judge(result.action, content.get("decision"), self.mono() - started)

    async def _url(self, approval: Approval, token: str) -> Ask:
        assert self.page is not None
        url = await self.page(approval, approvals.page_token(token))  # never the card's
        where = line(approval.where(), 2400)
        text = f"Approve or decline approval {approval.id} ({where}) on this page."
        params = ElicitRequestURLParams(message=text, url=url, elicitation_id=input_key(approval))
        self._ask_first(approval, params)
        try:
            await self.ctx.session.elicit_url(
                message=text,
                url=url,
                elicitation_id=input_key(approval),
                related_request_id=self.ctx.request_id,
            )
        except Exception as exc:
            log.warning("the approval link could not be shown: %s", type(exc).__name__)
            return Ask("pending", "The client could not open the approval's page.", Channel.PAGE)
        return Ask("pending", "The person was given a link to the approval's page.", Channel.PAGE)
