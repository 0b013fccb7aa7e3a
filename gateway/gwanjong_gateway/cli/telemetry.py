"""FastMCP's OpenTelemetry spans only when tracing is configured: without an SDK they are
no-ops that still cost every call, so FastMCP's telemetry is off unless `[telemetry]
otlp_endpoint`, an `OTEL_*` setting or `FASTMCP_TELEMETRY_MODE` asks for it.
"""

from __future__ import annotations

from collections.abc import Mapping

_TRACING = (
    "OTEL_TRACES_EXPORTER",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_SERVICE_NAME",
)


def spans_only_when_traced(environ: Mapping[str, str], traced: bool = False) -> str:
    """Set FastMCP's telemetry mode for this process; returns the mode in effect.
    ``traced``: gateway.toml's `[telemetry] otlp_endpoint` is set (spans on)."""
    import fastmcp

    if traced:
        fastmcp.settings.telemetry_mode = "native"
        return "native"
    if any(environ.get(name) for name in ("FASTMCP_TELEMETRY_MODE", *_TRACING)):
        return str(fastmcp.settings.telemetry_mode)
    fastmcp.settings.telemetry_mode = "off"
    return "off"
