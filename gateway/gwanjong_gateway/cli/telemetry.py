"""FastMCP's OpenTelemetry spans only when tracing is configured.

Without an OpenTelemetry SDK the spans are no-ops, but each call still builds them (client
and server side, for every hop, in-process platforms included). The gateway turns FastMCP's
telemetry off unless gateway.toml's `[telemetry] otlp_endpoint` is set (observe/tracing.py
installs the SDK then), the environment configures tracing (any `OTEL_*` exporter or
service setting) or sets `FASTMCP_TELEMETRY_MODE` itself.
"""

from __future__ import annotations

from collections.abc import Mapping

_TRACING = (
    "OTEL_TRACES_EXPORTER",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_SERVICE_NAME",
)


def tracing_configured(environ: Mapping[str, str]) -> bool:
    return any(environ.get(name) for name in _TRACING)


def spans_only_when_traced(environ: Mapping[str, str], traced: bool = False) -> str:
    """Set FastMCP's telemetry mode for this process; returns the mode in effect.
    ``traced``: gateway.toml's `[telemetry] otlp_endpoint` is set (spans on)."""
    import fastmcp

    if traced:
        fastmcp.settings.telemetry_mode = "native"
        return "native"
    if environ.get("FASTMCP_TELEMETRY_MODE") or tracing_configured(environ):
        return str(fastmcp.settings.telemetry_mode)
    fastmcp.settings.telemetry_mode = "off"
    return "off"
