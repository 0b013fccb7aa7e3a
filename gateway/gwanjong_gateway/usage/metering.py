"""Feeding the usage record: a middleware around every gateway tool, and the observer
`Upstreams.call` reports each platform call to."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.platforms.outcome import Outcome
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.usage.log import UsageLog, open_usage
from gwanjong_gateway.usage.spend import Spend
from gwanjong_shared.contract.errors import read_error
from gwanjong_shared.kit.mcp_errors import answered_kind


class UsageMiddleware(Middleware):
    """Counts each gateway tool call, its error kind and the tokens of its result."""

    def __init__(self, usage: UsageLog, who: Callable[[], str | None] = lambda: None) -> None:
        self.usage = usage
        self.who = who

    async def on_call_tool(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        name = str(getattr(context.message, "name", "?"))
        who = self.who() or ""
        started = time.perf_counter()
        try:
            result = await call_next(context)
        except Exception as exc:  # the kind the caller gets (ContractErrors answers it)
            text = str(exc) if isinstance(exc, ToolError) else ""
            kind = answered_kind(exc).value
            self.usage.record_gateway(name, kind, time.perf_counter() - started, text, who)
            raise
        text, kind = _text_of(result), ""
        if getattr(result, "is_error", False):  # ContractErrors made the failure a result
            kind = read_error(getattr(result, "structured_content", None), text).kind.value
        self.usage.record_gateway(name, kind, time.perf_counter() - started, text, who)
        return result


def _text_of(result: Any) -> str:
    """What the model reads of a tool result: its text blocks (JSON for structured data)."""
    blocks: list[object] = getattr(result, "content", None) or []
    parts = [text for block in blocks if isinstance(text := getattr(block, "text", None), str)]
    if not parts:
        structured = getattr(result, "structured_content", None)
        if structured is not None:
            parts.append(json.dumps(structured, ensure_ascii=False, default=str))
    return "\n".join(parts)


def attach_usage(
    mcp: FastMCP[Any],
    upstreams: Upstreams,
    config: GatewayConfig,
    environ: dict[str, str] | None = None,
    who: Callable[[], str | None] = lambda: None,
) -> UsageLog:
    """Meter this gateway: the outermost middleware (it sees the final error text) and the
    platform-call observer. ``who``: the caller of the current request ('' outside one)."""
    usage = open_usage(config, environ)
    mcp.middleware.insert(0, UsageMiddleware(usage, who))

    def observe(platform: str, tool: str, outcome: Outcome, seconds: float) -> None:
        usage.record_platform(
            platform,
            tool,
            "" if outcome.ok else (outcome.kind.value if outcome.kind else "unavailable"),
            seconds,
            message=outcome.message,
            retry_after=outcome.retry_after,
            rate=outcome.rate,
            principal=who() or "",
        )

    upstreams.observer = observe
    if isinstance(upstreams.gate, Spend):  # each spend row names its caller too
        upstreams.gate.who = who
    return usage
