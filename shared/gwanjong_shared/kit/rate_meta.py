"""The kit's middleware that puts the platform's rate window in each result's ``_meta``
(the shape is the contract's: :mod:`gwanjong_shared.contract.rate`)."""

from __future__ import annotations

from typing import Any

from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult

from gwanjong_shared.contract.rate import META_KEY, RateWindow
from gwanjong_shared.kit.ratelimit import recording, tightest


class RateMeta(Middleware):
    """Attach the tightest rate window a tool call observed to its result's ``_meta``."""

    async def on_call_tool(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        with recording() as seen:
            result = await call_next(context)
        window = tightest(seen)
        found = RateWindow.from_rate_limit(window) if window is not None else None
        if found is None or not isinstance(result, ToolResult):
            return result
        meta = dict(result.meta or {})
        meta[META_KEY] = found.model_dump(mode="json")
        return result.model_copy(update={"meta": meta})
