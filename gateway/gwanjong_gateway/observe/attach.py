"""`attach` after `build_gateway`, then serve inside `observed.running()`. Tracing
(docs/operate/observability.md): FastMCP's own MCP spans and the OTLP exporter when
`[telemetry] otlp_endpoint` is set, nothing at all when it is not."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from fastmcp import FastMCP
from fastmcp.server.auth import AuthProvider
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from opentelemetry import trace

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.extras import missing_message
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.observe import endpoint
from gwanjong_gateway.observe.jsonlog import use_json_lines
from gwanjong_gateway.observe.metrics import Metrics, ToolMetrics
from gwanjong_gateway.team.auth import listen
from gwanjong_shared.kit.tracing import TracingUnavailable, start_tracing

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

Transport = Literal["stdio", "http"]


class ObserveProblem(Exception):
    """`[metrics]`/`[telemetry]` cannot be served as configured; the text says what to do."""


@dataclass
class Observed:
    metrics: Metrics | None = None
    provider: TracerProvider | None = None
    #: the metrics' own listener (`[metrics] port`), bound by attach
    sock: socket.socket | None = None
    scrape: endpoint.Handler | None = None

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncGenerator[None, None]:
        """The own listener while the gateway serves; spans flushed when it ends."""
        try:
            if self.scrape is not None and self.sock is not None:
                async with endpoint.own_listener(self.scrape, self.sock):
                    yield
            else:
                yield
        finally:
            if self.provider is not None:
                self.provider.shutdown()


def attach(
    server: FastMCP[Any],
    gw: Gateway,
    config: GatewayConfig,
    auth: AuthProvider | None,
    transport: Transport,
    exporter: SpanExporter | None = None,
) -> Observed:
    """Turn on what `[telemetry]`, `[metrics]` and `[logging]` ask for. ``exporter``: the
    span exporter instead of OTLP (tests). Raises ObserveProblem."""
    observed = Observed()
    if config.logging.json_lines:
        use_json_lines()
    section = config.metrics
    if section.enabled:
        if transport == "stdio" and section.port == 0:
            raise ObserveProblem(
                "[metrics] enabled = true needs an HTTP server: serve with --transport http "
                "(metrics at /metrics, behind [auth]) or set [metrics] port = N (its own "
                "listener on 127.0.0.1:N)."
            )
        try:
            metrics = Metrics()
        except ImportError:
            raise ObserveProblem(missing_message("observe")) from None
        gw.upstreams.observer = metrics.chain(gw.upstreams.observer)
        server.add_middleware(ToolMetrics(metrics, time.perf_counter))
        observed.metrics = metrics
        if section.port == 0:
            server.custom_route(endpoint.PATH, methods=["GET"])(endpoint.handler(metrics, gw, auth))
        else:
            # its own loopback listener: no token asked (only this machine reaches it)
            observed.scrape = endpoint.handler(metrics, gw, None)
            try:
                observed.sock = listen("127.0.0.1", section.port)
            except OSError as exc:
                raise ObserveProblem(
                    f"[metrics] cannot listen on 127.0.0.1:{section.port} ({exc.strerror}); "
                    "choose another port, or 0 to serve /metrics on the HTTP server."
                ) from None
    endpoint_url = config.telemetry.otlp_endpoint
    if endpoint_url:
        import fastmcp

        fastmcp.settings.telemetry_mode = "native"
        try:
            observed.provider = start_tracing(endpoint_url, config.telemetry.service_name, exporter)
        except TracingUnavailable as exc:
            raise ObserveProblem(str(exc)) from None
        server.add_middleware(NetworkTransport(transport))
    return observed


class NetworkTransport(Middleware):
    """`network.transport` (`pipe` or `tcp`) on the gateway's span of each request."""

    def __init__(self, transport: Transport) -> None:
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
