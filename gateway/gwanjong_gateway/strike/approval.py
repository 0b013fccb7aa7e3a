"""Asking the human before a write, in both protocol eras.

Handshake era (2025-11-25, today's desktop clients): the server pushes an elicitation
request mid-call. Stateless era (2026-07-28): the tool returns an input-required result,
and the client calls it again with the answer, so the tool runs again from the top and
reads the answer from `ctx.input_responses`. A client that cannot ask with a form (none
declared, or only URL mode) gets a refusal, never a silent write.
"""

from __future__ import annotations

from typing import Literal

from fastmcp import Context
from mcp.types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

Answer = Literal["accept", "decline", "cancel", "unsupported"]
_KEY = "approve_write"
_SCHEMA = {
    "type": "object",
    "properties": {"approve": {"type": "boolean", "title": "Publish this?", "default": False}},
    "required": ["approve"],
}


def can_elicit(ctx: Context) -> bool:
    """Whether the client declared form-mode elicitation, the only mode that can ask
    "publish this?". An empty `elicitation: {}` means form (the spec's default); a client
    that declared only `url` must never get a form request."""
    session = ctx.session if ctx.request_context is not None else None
    caps = getattr(session, "client_capabilities", None) if session is not None else None
    elicitation = getattr(caps, "elicitation", None) if caps is not None else None
    if elicitation is None:
        return False
    form, url = getattr(elicitation, "form", None), getattr(elicitation, "url", None)
    return form is not None or url is None


def modern_era(ctx: Context) -> bool:
    """Whether this request came in the stateless (2026-07-28) protocol era."""
    return (
        ctx.request_context is not None
        and ctx.request_context.protocol_version in MODERN_PROTOCOL_VERSIONS
    )


async def ask(ctx: Context, message: str) -> Answer | InputRequiredResult:
    """accept/decline/cancel, "unsupported", or (stateless era, first round) the
    InputRequiredResult the tool must return so the client can ask."""
    if not can_elicit(ctx):
        return "unsupported"
    if modern_era(ctx):
        responses = ctx.input_responses
        if responses is None or _KEY not in responses:
            request = ElicitRequest(
                method="elicitation/create",
                params=ElicitRequestFormParams(message=message, requested_schema=_SCHEMA),
            )
            return InputRequiredResult(result_type="input_required", input_requests={_KEY: request})
        answer = responses[_KEY]
        action = getattr(answer, "action", "cancel")
        content: dict[str, object] = getattr(answer, "content", None) or {}
        if action == "accept":
            return "accept" if bool(content.get("approve")) else "decline"
        return "decline" if action == "decline" else "cancel"
    result = await ctx.elicit(message, response_type=bool)
    if result.action == "accept":
        return "accept" if bool(getattr(result, "data", False)) else "decline"
    return "decline" if result.action == "decline" else "cancel"
