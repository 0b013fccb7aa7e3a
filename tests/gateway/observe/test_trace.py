"""One trace per write: the `traceparent` a client sends with strike continues through the
gateway's tool span into the platform server's tool span and its HTTP call to the
platform (the real Dev.to server in-process, its HTTP going to the sandbox's app in this
process); with no `[telemetry] otlp_endpoint`, nothing is installed."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
import opentelemetry.trace as otel_trace
import pytest
from fastmcp import Client, FastMCP
from opentelemetry import context as otel_context
from opentelemetry import propagate
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from gwanjong_devto.adapter import DevtoAdapter
from gwanjong_devto.profile import PROFILE
from gwanjong_devto.settings import Settings
from gwanjong_gateway.cli.telemetry import spans_only_when_traced
from gwanjong_gateway.config import parse
from gwanjong_gateway.observe.attach import Observed, attach
from gwanjong_gateway.server import build_gateway
from gwanjong_sandbox.app import SandboxApp
from gwanjong_sandbox.devto import API_KEY
from gwanjong_sandbox.state import SandboxState
from gwanjong_shared.kit.hosted import settings_from_env
from gwanjong_shared.kit.server import build_platform_server
from tests.gateway.helpers import config_text, drafted, patient_gateway
from tests.gateway.observe.otel import orphans, spans_of
from tests.mcp import approves

pytestmark = pytest.mark.anyio

TRACE_ID = 0x4BF92F3577B34DA6A3CE929D0E0E4736
PARENT_ID = 0x00F067AA0BA902B7
TRACEPARENT = f"00-{TRACE_ID:032x}-{PARENT_ID:016x}-01"
TRACESTATE = "vendor=opaque-1"
TELEMETRY = {"telemetry": {"otlp_endpoint": "http://127.0.0.1:4318"}}


class Headers:
    """ASGI middleware in front of the sandbox: (method, path, "traceparent;tracestate") of
    each request."""

    def __init__(self, app: Any, seen: list[tuple[str, str, str]]) -> None:
        self.app, self.seen = app, seen

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            parent = headers.get(b"traceparent", b"").decode()
            state = headers.get(b"tracestate", b"").decode()
            self.seen.append((scope["method"], scope["path"], f"{parent};{state}".rstrip(";")))
        await self.app(scope, receive, send)


def devto_server(state: SandboxState, seen: list[tuple[str, str, str]]) -> FastMCP[Any]:
    """The real Dev.to server; its HTTP goes to the sandbox's ASGI app in this process."""
    settings = settings_from_env(
        Settings,
        {
            "DEVTO_BASE_URL": "http://sandbox.test",
            "DEVTO_API_KEY": API_KEY,
            "DEVTO_READS_PER_MINUTE": "6000",
            "DEVTO_WRITE_INTERVAL_S": "0",
        },
    )
    adapter = DevtoAdapter(
        settings, transport=httpx.ASGITransport(Headers(SandboxApp(state), seen))
    )
    return build_platform_server(adapter, call_timeout_s=20, profile=PROFILE)


def traced_gateway(
    tmp_path: Path,
    state: SandboxState,
    tables: dict[str, Any],
    exporter: InMemorySpanExporter,
    seen: list[tuple[str, str, str]],
) -> tuple[FastMCP[Any], Observed]:
    config = parse(config_text(tmp_path, ["devto"], "live", tables=tables))
    gw = patient_gateway(config, {}, {"devto": devto_server(state, seen)})
    mcp = build_gateway(config, gateway=gw)
    return mcp, attach(mcp, gw, config, None, "http", exporter=exporter)


def otel_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("Otel")]


async def test_one_strike_is_one_trace_from_the_client_to_the_platform_http(
    tmp_path: Path,
) -> None:
    state = SandboxState()
    exporter = InMemorySpanExporter()
    seen: list[tuple[str, str, str]] = []
    mcp, observed = traced_gateway(tmp_path, state, TELEMETRY, exporter, seen)
    assert isinstance(otel_trace.get_tracer_provider(), TracerProvider)
    assert observed.provider is not None
    # a Dev.to article waits for a person even in live mode: asked within the call (the
    # 2025-11-25 era), so the strike stays one call and one trace
    async with Client(mcp, mode="legacy", elicitation_handler=approves) as client:
        oid = await drafted(client)
        observed.provider.force_flush()
        exporter.clear()
        # The client's own trace: its call continues the traceparent it was handed.
        sent = {"traceparent": TRACEPARENT, "tracestate": TRACESTATE}
        token = otel_context.attach(propagate.extract(sent))
        try:
            struck = await client.call_tool(
                "strike",
                {"opportunity_id": oid, "action": "post", "content": "Hi", "title": "Hello"},
            )
        finally:
            otel_context.detach(token)
    assert struck.structured_content is not None
    assert struck.structured_content["status"] == "posted", struck.structured_content
    assert len(state.writes) == 1
    observed.provider.force_flush()
    finished = list(exporter.get_finished_spans())
    spans = spans_of(finished, TRACE_ID)
    named = [(s.name, s.kind) for s in spans]

    def one(kind: SpanKind, **attrs: Any) -> Any:
        found = [
            s
            for s in spans
            if s.kind is kind and all((s.attributes or {}).get(k) == v for k, v in attrs.items())
        ]
        assert found, f"no {kind} span with {attrs} in {named}"
        return found[0]

    client_call = one(SpanKind.CLIENT, **{"gen_ai.tool.name": "strike"})
    gateway_tool = one(
        SpanKind.SERVER, **{"gen_ai.tool.name": "strike", "mcp.method.name": "tools/call"}
    )
    to_platform = one(SpanKind.CLIENT, **{"gen_ai.tool.name": "write_post"})
    platform_tool = one(SpanKind.SERVER, **{"gen_ai.tool.name": "write_post"})
    platform_http = one(SpanKind.CLIENT, **{"http.request.method": "POST"})
    assert gateway_tool.name == "tools/call strike"
    assert gateway_tool.attributes["network.transport"] == "tcp"  # attached as for HTTP
    by_id: dict[int, Any] = {sp.context.span_id: sp for sp in spans if sp.context is not None}

    def descends(child: Any, ancestor: Any) -> bool:
        # the MCP SDK's own "MCP send" span sits between a client call and its server
        at = child
        while at.parent is not None and at.parent.span_id in by_id:
            at = by_id[at.parent.span_id]
            if at is ancestor:
                return True
        return False

    assert client_call.parent.span_id == PARENT_ID  # the client's call continues its trace
    assert descends(gateway_tool, client_call)
    assert to_platform.parent.span_id == gateway_tool.context.span_id
    assert descends(platform_tool, to_platform)
    assert platform_http.parent.span_id == platform_tool.context.span_id
    assert platform_tool.attributes["fastmcp.server.name"] == "gwanjong-devto"
    assert platform_http.name == "POST"
    assert platform_http.attributes["http.response.status_code"] == 201
    assert platform_http.attributes["url.full"] == "http://sandbox.test/api/articles"
    assert orphans(spans, PARENT_ID) == []
    # the whole write is in this trace: no platform call or HTTP request in another one
    strays = [
        sp.name
        for sp in finished
        if sp not in spans
        and (
            "gen_ai.tool.name" in (sp.attributes or {})
            or "http.request.method" in (sp.attributes or {})
        )
    ]
    assert strays == []
    # and the platform received it: the HTTP span's own context in the request's headers
    http_id = f"00-{TRACE_ID:032x}-{platform_http.context.span_id:016x}-01"
    assert ("POST", "/api/articles", f"{http_id};{TRACESTATE}") in seen


async def test_no_endpoint_installs_nothing(tmp_path: Path) -> None:
    assert spans_only_when_traced({}, traced=False) == "off"  # as `gwanjong` serves
    before = otel_threads()
    exporter = InMemorySpanExporter()
    seen: list[tuple[str, str, str]] = []
    mcp, observed = traced_gateway(tmp_path, SandboxState(), {}, exporter, seen)
    assert observed.provider is None
    assert not isinstance(otel_trace.get_tracer_provider(), TracerProvider)
    assert otel_threads() == before
    async with Client(mcp) as client:
        await client.call_tool("scout", {"topic": "rust async cancellation", "limit": 5})
    assert exporter.get_finished_spans() == ()
    assert seen and all(parent == "" for _m, _p, parent in seen)  # no header sent either


async def test_the_call_that_starts_a_platform_does_not_keep_it_in_its_trace(
    tmp_path: Path,
) -> None:
    """The platform server starts during the first traced call; a later call's platform
    spans belong to the later call's trace, not to the one that started the server."""
    exporter = InMemorySpanExporter()
    mcp, observed = traced_gateway(tmp_path, SandboxState(), TELEMETRY, exporter, [])
    assert observed.provider is not None
    first, second = 0x1111, 0x2222
    async with Client(mcp) as client:
        for trace_id in (first, second):
            parent = f"00-{trace_id:032x}-{PARENT_ID:016x}-01"
            token = otel_context.attach(propagate.extract({"traceparent": parent}))
            try:
                await client.call_tool("scout", {"topic": "rust async", "limit": 5})
            finally:
                otel_context.detach(token)
    observed.provider.force_flush()
    finished = list(exporter.get_finished_spans())
    platform_side = [
        sp
        for sp in spans_of(finished, second)
        if (sp.attributes or {}).get("fastmcp.server.name") == "gwanjong-devto"
    ]
    assert platform_side, "the second scout's platform calls are not in its trace"
    assert orphans(spans_of(finished, second), PARENT_ID) == []
