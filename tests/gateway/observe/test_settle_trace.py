"""An unsure write's settlement is found from the strike's trace (fast tier: the gateway
over MCP, the fake platform, fake clocks, spans in memory): the claimed row keeps the
strike's trace context, and each read-back's span (`gwanjong.settle`, a root of its own
when the settle loop runs it) carries a span link to the strike's span and the record id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from opentelemetry import context as otel_context
from opentelemetry import propagate
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from gwanjong_gateway.observe.attach import attach
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_gateway.strike.settle import RECORD_ID, SPAN
from gwanjong_shared.contract.errors import ErrorKind
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import FORUM
from tests.gateway.helpers import drafted, gateway_of

pytestmark = pytest.mark.anyio

TRACE_ID = 0x5AF92F3577B34DA6A3CE929D0E0E4736
PARENT_ID = 0x01F067AA0BA902B7
TELEMETRY = {
    "telemetry": {"otlp_endpoint": "http://127.0.0.1:4318"},
    "safety": {"settle_window_s": 120},
}


async def test_the_settle_span_links_to_the_strike_that_sent_the_write(tmp_path: Path) -> None:
    fake, clock, exporter = FakePlatform(FORUM), FakeClock(), InMemorySpanExporter()
    gw, mcp = gateway_of(tmp_path, fake, clock=clock, wall=clock.time, tables=TELEMETRY)
    observed = attach(mcp, gw, gw.config, None, "http", exporter=exporter)
    assert observed.provider is not None
    async with Client(mcp) as client:
        oid = await drafted(client)
        fake.lag = True  # the post lands but does not show in reads yet...
        fake.land("write_post", ErrorKind.TIMEOUT)  # ...and the platform's answer is lost
        token = otel_context.attach(
            propagate.extract({"traceparent": f"00-{TRACE_ID:032x}-{PARENT_ID:016x}-01"})
        )
        try:
            struck = await client.call_tool(
                "strike",
                {"opportunity_id": oid, "action": "post", "content": "Hi", "title": "Hello"},
                raise_on_error=False,
            )
        finally:
            otel_context.detach(token)
        assert struck.is_error and "may already be written" in str(struck.content), struck
        [row] = await gw.records.run(StrikeStore.unsettled)
        observed.provider.force_flush()
        [strike_span] = [
            s
            for s in exporter.get_finished_spans()
            if s.kind is SpanKind.SERVER and s.name == "tools/call strike"
        ]
        assert strike_span.context is not None and strike_span.context.trace_id == TRACE_ID
        assert (row.trace_id, row.span_id) == (
            f"{TRACE_ID:032x}",
            f"{strike_span.context.span_id:016x}",
        )
        exporter.clear()
        # Later, the settle loop (no trace of its own to continue) reads it back.
        fake.show_late()
        clock.advance(60)
        assert await gw.desk.settler.settle_due() == 1
    observed.provider.force_flush()
    spans = list(exporter.get_finished_spans())
    [settle] = [s for s in spans if s.name == SPAN]
    assert settle.parent is None and settle.context is not None  # a root: the loop's own trace
    assert settle.context.trace_id != TRACE_ID
    attributes: dict[str, Any] = dict(settle.attributes or {})
    assert attributes[RECORD_ID] == row.id
    [link] = settle.links
    assert (link.context.trace_id, link.context.span_id) == (TRACE_ID, strike_span.context.span_id)
    assert dict(link.attributes or {})[RECORD_ID] == row.id
    # the read-back's platform call is in the settlement's trace, under its span
    [search] = [
        s
        for s in spans
        if s.kind is SpanKind.CLIENT and (s.attributes or {}).get("gen_ai.tool.name") == "search"
    ]
    assert search.parent is not None and search.parent.span_id == settle.context.span_id
    final = await gw.records.run(StrikeStore.get, row.id)
    assert final is not None and final.status == StrikeStatus.POSTED
