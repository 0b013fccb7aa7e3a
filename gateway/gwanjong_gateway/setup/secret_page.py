"""Asking for credentials by URL-mode elicitation (the spec forbids form mode for secrets):
a one-time link to the credential page. Stateless clients get an input-required result and
call again; a client that cannot open a URL is refused.
"""

from __future__ import annotations

import enum

from fastmcp import Context
from mcp.types import ElicitRequest, ElicitRequestURLParams, InputRequiredResult

from gwanjong_gateway.setup.secret_listener import LinkState, SaveFn, SecretListener
from gwanjong_gateway.setup.setup_results import SetupSaved
from gwanjong_gateway.strike.elicitation import can_url, modern_era

_KEY = "gwanjong_credentials_page"


class Ask(enum.Enum):
    UNSUPPORTED = "unsupported"  # the client declared no URL-mode elicitation
    DECLINED = "declined"  # the person declined or cancelled opening the page
    PENDING = "pending"  # the page is open; nothing saved yet


def _message(platform: str) -> str:
    return (
        f"gwanjong: open this page to enter the {platform} credentials. It is served by the "
        "gateway on this computer; the values are saved to its .env (mode 0600) and never "
        "shown to the assistant. The link works once, for 10 minutes."
    )


async def ask_secrets(
    ctx: Context,
    listener: SecretListener,
    platform: str,
    names: list[str],
    on_save: SaveFn,
    owner: str | None = None,
) -> SetupSaved | Ask | InputRequiredResult:
    """What saving answered (names, check, warning: never a value), UNSUPPORTED, DECLINED,
    PENDING, or (stateless, first round) the input-required result to return. ``owner`` keys the link: no one else's call finds or supersedes it."""
    if not can_url(ctx):
        return Ask.UNSUPPORTED
    if modern_era(ctx):
        responses, state = ctx.input_responses, ctx.request_state
        link = listener.find(state, owner) if state else None
        if link is not None and (link.platform != platform or link.state is LinkState.CANCELLED):
            link = None  # superseded or for another platform: a fresh link
        if responses is None or _KEY not in responses or link is None:
            link = await listener.open(platform, names, on_save, owner=owner)
            request = ElicitRequest(
                method="elicitation/create",
                params=ElicitRequestURLParams(message=_message(platform), url=listener.url(link)),
            )
            return InputRequiredResult(
                result_type="input_required",
                input_requests={_KEY: request},
                request_state=link.elicitation_id,  # an id, not the token
            )
        action = getattr(responses[_KEY], "action", "cancel")
    else:
        session = ctx.session
        complete = session.send_elicit_complete
        link = await listener.open(platform, names, on_save, complete, owner=owner)
        answer = await session.elicit_url(
            _message(platform),
            listener.url(link),
            link.elicitation_id,
            related_request_id=ctx.request_id,
        )
        action = answer.action
    if link.result is not None:  # saved (set with LinkState.SAVED, and only then)
        return link.result
    if action != "accept":
        link.cancel()
        return Ask.DECLINED
    return Ask.PENDING
