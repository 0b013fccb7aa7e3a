from __future__ import annotations

import fastmcp
import pytest
from fastmcp.telemetry import get_tracer

from gwanjong_gateway.cli.telemetry import spans_only_when_traced


@pytest.fixture(autouse=True)
def restore_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastmcp.settings, "telemetry_mode", "native")


@pytest.mark.parametrize(
    ("environ", "mode"),
    [
        ({}, "off"),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, "native"),
        ({"FASTMCP_TELEMETRY_MODE": "native"}, "native"),
    ],
)
def test_spans_only_when_tracing_is_configured(environ: dict[str, str], mode: str) -> None:
    assert spans_only_when_traced(environ) == mode
    assert (type(get_tracer()).__name__ == "_DisabledTracer") == (mode == "off")
