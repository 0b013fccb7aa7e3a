"""Asking the human for credentials in the client's own form (MCP elicitation).

The values go from the person's keyboard to the gateway; the model only learns which
names were saved. Handshake-era clients get an elicitation request mid-call; stateless
(2026-07-28) clients get an input-required result and call again with the answers.
"""

from __future__ import annotations

from typing import Any, Literal

from fastmcp import Context
from mcp.types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult
from pydantic import Field, create_model

from gwanjong_gateway.approval import _modern, can_elicit

Refusal = Literal["declined", "unsupported"]
_KEY = "gwanjong_credentials"


def _schema(names: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": "string", "title": name} for name in names},
        "required": names,
    }


async def ask_secrets(
    ctx: Context, platform: str, names: list[str]
) -> dict[str, str] | Refusal | InputRequiredResult:
    """The values the person typed, "declined", "unsupported", or (stateless era, first
    round) the InputRequiredResult the tool must return so the client can ask."""
    if not can_elicit(ctx):
        return "unsupported"
    message = (
        f"gwanjong: enter the {platform} credentials. They are saved to the gateway's .env "
        "(mode 0600) and never shown to the assistant."
    )
    if _modern(ctx):
        responses = ctx.input_responses
        if responses is None or _KEY not in responses:
            request = ElicitRequest(
                method="elicitation/create",
                params=ElicitRequestFormParams(message=message, requested_schema=_schema(names)),
            )
            return InputRequiredResult(result_type="input_required", input_requests={_KEY: request})
        answer = responses[_KEY]
        if getattr(answer, "action", "cancel") != "accept":
            return "declined"
        content = getattr(answer, "content", None) or {}
        return {n: str(content.get(n, "")) for n in names}
    fields: dict[str, Any] = {n: (str, Field(default="", title=n)) for n in names}
    form = create_model("Credentials", **fields)
    result = await ctx.elicit(message, response_type=form)
    if result.action != "accept":
        return "declined"
    data = result.data.model_dump() if hasattr(result.data, "model_dump") else {}  # type: ignore[union-attr]
    return {n: str(data.get(n, "")) for n in names}
