from __future__ import annotations

import fastmcp
import pytest
from fastmcp.telemetry import get_tracer

from gwanjong_gateway.cli.telemetry import spans_only_when_traced


@pytest.fixture(autouse=True)
def restore_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastmcp.settings, "telemetry_mode", "native")


def test_no_spans_unless_tracing_is_configured() -> None:
    assert spans_only_when_traced({}) == "off"
    assert type(get_tracer()).__name__ == "_DisabledTracer"


@pytest.mark.parametrize(
    "environ",
    [
        {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"},
        {"FASTMCP_TELEMETRY_MODE": "native"},
    ],
)
def test_configured_tracing_keeps_spans(environ: dict[str, str]) -> None:
    assert spans_only_when_traced(environ) == "native"
    assert type(get_tracer()).__name__ != "_DisabledTracer"
