"""OpenTelemetry's process-wide tracer provider, reset around a test that installs one
(OpenTelemetry's own tests do the same: the API lets a process set it once)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import fastmcp
import opentelemetry.trace as otel_trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.util._once import Once


def reset_tracer_provider() -> None:
    otel_trace._TRACER_PROVIDER_SET_ONCE = Once()
    otel_trace._TRACER_PROVIDER = None
    # The MCP SDK keeps one module-level proxy tracer, which binds to the first provider
    # installed: unbound again, so a later test sees what a fresh process would.
    import mcp.shared._otel as mcp_otel

    tracer: Any = mcp_otel._tracer
    if isinstance(tracer, otel_trace.ProxyTracer):
        tracer._real_tracer = None


@contextmanager
def clean_tracing() -> Iterator[None]:
    """No provider installed before; whatever the test installed is gone after, and
    FastMCP's telemetry mode is what it was."""
    mode = fastmcp.settings.telemetry_mode
    reset_tracer_provider()
    try:
        yield
    finally:
        provider: Any = otel_trace.get_tracer_provider()
        shutdown = getattr(provider, "shutdown", None)
        if callable(shutdown):
            shutdown()
        reset_tracer_provider()
        fastmcp.settings.telemetry_mode = mode


def spans_of(
    spans: tuple[ReadableSpan, ...] | list[ReadableSpan], trace_id: int
) -> list[ReadableSpan]:
    return [s for s in spans if s.context is not None and s.context.trace_id == trace_id]


def orphans(spans: list[ReadableSpan], remote_parent: int) -> list[str]:
    """Spans whose parent is neither another span of the list nor the caller's own."""
    ids = {s.context.span_id for s in spans if s.context is not None}
    return [
        s.name
        for s in spans
        if s.parent is None or (s.parent.span_id not in ids and s.parent.span_id != remote_parent)
    ]
