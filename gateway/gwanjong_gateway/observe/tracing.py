"""Tracing from `[telemetry]` (docs/operate/observability.md): FastMCP's own MCP spans and
the OTLP exporter when `otlp_endpoint` is set, nothing at all when it is not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from opentelemetry import trace

from gwanjong_gateway.config import GatewayConfig
from gwanjong_shared.kit.tracing import start_tracing

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter


def start(config: GatewayConfig, exporter: SpanExporter | None = None) -> TracerProvider | None:
    """Tracing as `[telemetry]` says; None (and nothing installed) when it is off.
    ``exporter``: where spans go instead of OTLP (tests)."""
    endpoint = config.telemetry.otlp_endpoint
    if not endpoint:
        return None
    import fastmcp

    fastmcp.settings.telemetry_mode = "native"
    return start_tracing(endpoint, config.telemetry.service_name, exporter)


class NetworkTransport(Middleware):
    """`network.transport` (`pipe` or `tcp`) on the gateway's span of each request."""

    def __init__(self, transport: Literal["stdio", "http"]) -> None:
        self.attributes: dict[str, str] = (
            {"network.transport": "pipe"}
            if transport == "stdio"
            else {"network.transport": "tcp", "network.protocol.name": "http"}
        )

    async def on_request(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        span = trace.get_current_span()
        if span.is_recording():
            span.set_attributes(self.attributes)
        return await call_next(context)
