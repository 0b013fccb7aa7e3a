"""The MCP Apps card (docs/use/approval-page-and-app.md): Approve/Decline through the
app-only tool `approval_decide`. The card's one-time token reaches it only in the result's
`_meta` (never `content`); the tool's `visibility: ["app"]` is not the safety, the token is
(`StrikeDesk.decide`, `approvals.token_fits`): the card's own, never the page link's, which a
client may show the model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

from fastmcp import Context, FastMCP
from fastmcp.apps.config import (
    UI_EXTENSION_ID,
    UI_MIME_TYPE,
    AppConfig,
    app_config_to_meta_dict,
    is_model_visible,
)
from fastmcp.exceptions import ToolError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import Tool, ToolResult
from mcp.types import ToolAnnotations
from pydantic import Field

from gwanjong_gateway.channels.card import CARD_HTML
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import Approval, Channel, iso
from gwanjong_gateway.strike.desk import StrikeDesk
from gwanjong_gateway.strike.results import PendingApproval, StrikeResult
from gwanjong_gateway.strike.wording import unexpected
from gwanjong_gateway.wire import output_schema
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.visible import line, link, plain, show
from gwanjong_shared.tool_templates import tool

CARD_URI = "ui://gwanjong/approval.html"
#: where a strike result's `_meta` carries the approval for the card
META_KEY = "io.github.gwanjong/approval"
APP_TOOL = "approval_decide"
#: what the strike tool declares, so an Apps host renders the card beside its result
STRIKE_META: dict[str, Any] = {"ui": {"resourceUri": CARD_URI}}


def renders_apps(ctx: Context | None) -> bool:
    """The client declared the MCP Apps extension (either protocol era)."""
    return ctx is not None and ctx.client_supports_extension(UI_EXTENSION_ID)


def without_ui(tool: Tool) -> Tool:
    """``tool`` without its `_meta.ui` (a card only a host that renders apps can show)."""
    meta = tool.meta or {}
    if "ui" not in meta:
        return tool
    return tool.model_copy(update={"meta": {k: v for k, v in meta.items() if k != "ui"}})


class AppOnlyTools(Middleware):
    """For clients that render no apps, `tools/list` leaves out the app-only tools and
    the card's `_meta.ui` (tokens the model would read for nothing)."""

    async def on_list_tools(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Sequence[Tool]]
    ) -> Sequence[Tool]:
        tools = await call_next(context)
        if renders_apps(context.fastmcp_context):
            return tools
        # an app-only tool declares `_meta.ui.visibility` without "model"
        return [without_ui(t) for t in tools if is_model_visible(t)]


async def with_card(
    ctx: Context, answer: StrikeResult, records: Records
) -> StrikeResult | ToolResult:
    """strike's answer as is, or (an Apps host, an approval this strike opened) the same
    structured result plus `_meta` with what the card shows and the one-time token."""
    if not isinstance(answer, PendingApproval) or not answer.token or not renders_apps(ctx):
        return answer
    approval = await records.run(StrikeStore.approval, answer.approval.id)
    if approval is None:
        return answer
    answer.approval.how.insert(0, "the approval card shown beside this result (Approve / Decline)")
    card = card_view(approval, answer.token)
    return ToolResult(structured_content=answer.model_dump(mode="json"), meta={META_KEY: card})


def card_view(approval: Approval, token: str) -> dict[str, Any]:
    """What the card shows, drawn by `contract.visible`; its script only places these."""
    title, text = show(approval.title), show(approval.text)
    target = approval.target_url if approval.action != "post" else ""
    write = approval.write
    post = approval.action == "post"
    return {
        "id": approval.id,
        "token": token,
        "where": line(approval.where(), 2400),
        "target": target,
        "title": approval.title,
        "tags": list(write.tags) if post else None,
        "account": write.account,
        "visibility": write.visibility,
        "text": approval.text,
        "expires_at": iso(approval.expires_at),
        "shown": {
            # a post the platform gave no link for is named by its id, never "a new post"
            "target": link(target or (approval.target if not post else "")),
            "title": title.text,
            "title_warning": title.warning(),
            "tags": [show(t, fold=False).text for t in write.tags] if post else None,
            "as": f"{line(write.account, 100) or 'our account'}, {write.visibility}",
            "also": [line(a, 400) for a in write.also()],
            "links": [link(u) for u in write.links],
            "text": text.text,
            "warning": text.warning(),
            "length": f"{approval.size()} (disclosure footer included)",
        },
    }


def register_card(mcp: FastMCP[Any], desk: StrikeDesk, who: Callable[[], str | None]) -> None:
    """The card resource, the app-only tool and the `tools/list` filter. ``who``: the
    signed-in caller of the current request (None without sign-in)."""
    mcp.add_middleware(AppOnlyTools())

    @mcp.resource(
        CARD_URI,
        name="approval_card",
        description="The approval card: Approve or Decline a write waiting for a person.",
        mime_type=UI_MIME_TYPE,
        app=AppConfig(prefers_border=True),
    )
    def approval_card() -> str:
        return CARD_HTML

    @tool(
        mcp,
        name=APP_TOOL,
        description=(
            "For the approval card only (the person's buttons): approve or decline a "
            "pending approval with its one-time token. The model has no token."
        ),
        meta={"ui": app_config_to_meta_dict(AppConfig(visibility=["app"]))},
        output_schema=output_schema(StrikeResult),
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True
        ),
    )
    async def approval_decide(
        ctx: Context,
        approval_id: Annotated[int, Field(ge=1)],
        token: Annotated[str, Field(min_length=1, max_length=100)],
        decision: Literal["approve", "decline"],
        text: Annotated[str | None, Field(max_length=100_000)] = None,
    ) -> StrikeResult:
        if not renders_apps(ctx):
            # no card here, so no person's button: whoever calls it is the model, holding
            # at best a page link's token (meant for a browser, its form and 15 minutes)
            raise PlatformError(
                ErrorKind.NOT_FOUND,
                f"{APP_TOOL} is the approval card's, and this client shows no card. The person "
                "decides on the approval page, in the console or at the terminal.",
            )
        name = who()
        try:
            answer = await desk.decide(
                approval_id,
                decision,
                Channel.APP,
                by=name or "",
                who=name,
                token=token,
                text=text if decision == "approve" else None,
            )
        except PlatformError as exc:  # a typed, worded refusal, as the card shows it
            raise PlatformError(exc.kind, plain(exc.message), retry_after=exc.retry_after) from None
        except ToolError:
            raise
        except Exception as exc:  # FastMCP masks these before middleware: word them here
            raise unexpected(exc) from None
        return outcome(answer)


def outcome(answer: StrikeResult) -> StrikeResult:
    """A decision's answer with the words the card shows (its reason, the post's link)
    drawn by `contract.visible`: they can quote a platform, and the card's script sets them
    as they are."""
    said = {key: getattr(answer, key, None) for key in ("reason", "url")}
    return answer.model_copy(update={k: plain(v) for k, v in said.items() if v})
