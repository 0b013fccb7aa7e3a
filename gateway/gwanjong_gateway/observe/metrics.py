"""The gateway's Prometheus figures (docs/operate/observability.md), in a registry of its
own; the record's are read at each scrape within a deadline (`gwanjong_record_up`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from mcp import types as mt

from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.platforms.outcome import Outcome
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_shared.contract.errors import PlatformError, read_error
from gwanjong_shared.kit.mcp_errors import answered_kind

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

#: platform calls take from milliseconds (in-process, cached) to the call timeout
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 60.0)
#: how long a scrape waits for the strike record
RECORD_S = 2.0
#: the most approvals a scrape counts (a gauge, not an audit)
COUNT_CAP = 10_000
#: a tool name from a client is a label only when it looks like one, and only this many
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_MAX_TOOLS = 200


class Metrics:
    """The counters, histograms and gauges of one gateway."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry: CollectorRegistry = CollectorRegistry()
        counter, gauge = (
            partial(Counter, registry=self.registry),
            partial(Gauge, registry=self.registry),
        )
        histogram = partial(Histogram, buckets=BUCKETS, registry=self.registry)
        by_call = ["platform", "tool"]
        self.calls = counter("gwanjong_platform_calls", "Calls to platform servers.", by_call)
        self.errors = counter(
            "gwanjong_platform_errors",
            "Platform calls that failed, by error kind.",
            [*by_call, "kind"],
        )
        self.latency = histogram(
            "gwanjong_platform_call_seconds", "How long a platform call took.", by_call
        )
        self.rate_remaining = gauge(
            "gwanjong_rate_limit_remaining",
            "Calls left in the platform's rate-limit window, as its last answer said.",
            ["platform"],
        )
        self.rate_limit = gauge(
            "gwanjong_rate_limit_limit",
            "The size of that window, when the platform said it.",
            ["platform"],
        )
        self.tool_calls = counter(
            "gwanjong_tool_calls", "Calls to the gateway's own tools.", ["tool"]
        )
        self.tool_errors = counter(
            "gwanjong_tool_errors",
            "Gateway tool calls answered with an error, by error kind.",
            ["tool", "kind"],
        )
        self.tool_latency = histogram(
            "gwanjong_tool_call_seconds", "How long a gateway tool call took.", ["tool"]
        )
        self.pending = gauge(
            "gwanjong_approvals_pending", "Writes waiting for a person's approval."
        )
        self.unsettled = gauge(
            "gwanjong_writes_unsettled", "Writes whose outcome is not known yet (being read back)."
        )
        self.record_up = gauge(
            "gwanjong_record_up", "1 when the strike record answered this scrape, else 0."
        )
        self._tools: set[str] = set()

    def observe_platform(self, platform: str, tool: str, outcome: Outcome, seconds: float) -> None:
        self.calls.labels(platform, tool).inc()
        self.latency.labels(platform, tool).observe(seconds)
        if not outcome.ok:
            kind = outcome.kind.value if outcome.kind is not None else "unavailable"
            self.errors.labels(platform, tool, kind).inc()
        if outcome.rate is not None:
            self.rate_remaining.labels(platform).set(outcome.rate.remaining)
            if outcome.rate.limit is not None:
                self.rate_limit.labels(platform).set(outcome.rate.limit)

    def tool_label(self, name: str) -> str:
        """A client names the tool: bound what it can add to the label set."""
        if name in self._tools:
            return name
        if not _TOOL_NAME.match(name) or len(self._tools) >= _MAX_TOOLS:
            return "other"
        self._tools.add(name)
        return name

    def chain(
        self, previous: Callable[[str, str, Outcome, float], None] | None
    ) -> Callable[[str, str, Outcome, float], None]:
        """An upstreams observer that counts, then calls the one already there (usage)."""

        def observe(platform: str, tool: str, outcome: Outcome, seconds: float) -> None:
            self.observe_platform(platform, tool, outcome, seconds)
            if previous is not None:
                previous(platform, tool, outcome, seconds)

        return observe

    async def refresh(self, gw: Gateway) -> None:
        """The figures kept in the strike record, read now."""
        try:
            pending, unsettled = await gw.records.run_within(
                min(RECORD_S, gw.records.deadline_s), record_figures, gw.desk.claims.clock()
            )
        except PlatformError:
            self.record_up.set(0)
            return
        self.record_up.set(1)
        self.pending.set(pending)
        self.unsettled.set(unsettled)

    def render(self) -> tuple[bytes, str]:
        """The exposition text and its content type."""
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return generate_latest(self.registry), CONTENT_TYPE_LATEST


def record_figures(store: StrikeStore, now: float) -> tuple[int, int]:
    """(approvals pending, writes unsettled), everyone's (in the record's worker thread)."""
    pending = len(store.approvals(now, pending=True, principal=None, limit=COUNT_CAP))
    return pending, len(store.unsettled())


class ToolMetrics(Middleware):
    """Counts each call of the gateway's tools, its errors by kind and its latency."""

    def __init__(self, metrics: Metrics, clock: Callable[[], float]) -> None:
        self.metrics = metrics
        self.clock = clock

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: CallNext[mt.CallToolRequestParams, Any],
    ) -> Any:
        tool = self.metrics.tool_label(context.message.name)
        started = self.clock()
        kind = ""
        try:
            result = await call_next(context)
            if getattr(result, "is_error", False):  # an error answered as data
                kind = read_error(getattr(result, "structured_content", None), "").kind.value
            return result
        except Exception as exc:  # counted as the kind the caller gets (ContractErrors)
            kind = answered_kind(exc).value
            raise
        finally:
            self.metrics.tool_calls.labels(tool).inc()
            self.metrics.tool_latency.labels(tool).observe(self.clock() - started)
            if kind:
                self.metrics.tool_errors.labels(tool, kind).inc()
