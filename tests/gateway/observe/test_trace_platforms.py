"""Every platform's HTTP calls are in the caller's trace: a scout sent with a
`traceparent` through the gateway (each platform server in-process, its real SDK talking
HTTP to the sandbox) gives HTTP client spans under that platform's tool spans, on whatever
stack its SDK uses (httpx, atproto's httpx, tweepy's aiohttp, asyncpraw's aiohttp)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client
from opentelemetry import context as otel_context
from opentelemetry import propagate
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from gwanjong_gateway.config import parse
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.observe.attach import attach
from gwanjong_gateway.server import build_gateway
from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import config_text
from tests.gateway.observe.otel import orphans, spans_of
from tests.mcp import call
from tests.platforms import SPECS

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]

TRACE_ID = 0x5B8EFFF798038103D269B633813FC60C
PARENT_ID = 0xEEE19B7EC3C1B174


@pytest.mark.parametrize("name", sorted(SPECS))
async def test_a_platforms_http_calls_are_in_the_callers_trace(
    sandbox: SandboxControl, tmp_path: Path, name: str
) -> None:
    tables = {"telemetry": {"otlp_endpoint": "http://127.0.0.1:4318"}}
    config = parse(config_text(tmp_path, [name], "live", tables=tables))
    gw = Gateway(config, environ={}, transports={name: SPECS[name].build(sandbox.url)})
    mcp = build_gateway(config, gateway=gw)
    exporter = InMemorySpanExporter()
    observed = attach(mcp, gw, config, None, "stdio", exporter=exporter)
    assert observed.provider is not None
    async with Client(mcp, timeout=90) as client:
        parent = f"00-{TRACE_ID:032x}-{PARENT_ID:016x}-01"
        token = otel_context.attach(propagate.extract({"traceparent": parent}))
        try:
            scouted = await call(client, "scout", topic="rust async", platforms=[name])
        finally:
            otel_context.detach(token)
    assert scouted["errors"] == {}, scouted
    observed.provider.force_flush()
    spans = spans_of(list(exporter.get_finished_spans()), TRACE_ID)
    assert orphans(spans, PARENT_ID) == []
    by_id = {s.context.span_id: s for s in spans if s.context is not None}
    http = [
        s
        for s in spans
        if s.kind is SpanKind.CLIENT and "http.request.method" in (s.attributes or {})
    ]
    assert http, f"no HTTP span from {name}: {[s.name for s in spans]}"
    owners: set[object] = set()
    for s in http:
        assert s.parent is not None
        owner = by_id[s.parent.span_id]
        assert owner.kind is SpanKind.SERVER
        owners.add((owner.attributes or {}).get("gen_ai.tool.name"))
        assert isinstance((s.attributes or {}).get("http.response.status_code"), int)
        assert "?" not in str((s.attributes or {}).get("url.full"))  # no query string
    # the reads scout asked for; capabilities too when the gateway first learns the
    # platform's profile (its prices, for the spend gate) within this scout
    assert owners & {"search", "trending"} and owners <= {"search", "trending", "capabilities"}
