"""An OTLP/HTTP collector served by the test on 127.0.0.1: every span a process exports to
`<endpoint>/v1/traces` (protobuf), decoded with the service that sent it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from dataclasses import dataclass

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.gateway.http_gateway import serve_asgi


@dataclass(frozen=True)
class Collected:
    service: str
    name: str
    trace_id: int
    span_id: int
    parent_id: int  # 0: a root
    attributes: dict[str, object]


def _value(v: object) -> object:
    kind = v.WhichOneof("value")  # type: ignore[attr-defined]
    return getattr(v, kind) if kind else None


def decode(body: bytes) -> list[Collected]:
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    out: list[Collected] = []
    for resource_spans in request.resource_spans:
        resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
        service = str(resource.get("service.name", ""))
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                out.append(
                    Collected(
                        service,
                        span.name,
                        int.from_bytes(span.trace_id, "big"),
                        int.from_bytes(span.span_id, "big"),
                        int.from_bytes(span.parent_span_id, "big") if span.parent_span_id else 0,
                        {a.key: _value(a.value) for a in span.attributes},
                    )
                )
    return out


@contextlib.asynccontextmanager
async def collector() -> AsyncGenerator[tuple[str, list[Collected]], None]:
    """Yields (the endpoint to configure, the spans received so far)."""
    spans: list[Collected] = []

    async def traces(request: Request) -> Response:
        spans.extend(decode(await request.body()))
        return Response(
            ExportTraceServiceResponse().SerializeToString(), media_type="application/x-protobuf"
        )

    app = Starlette(routes=[Route("/v1/traces", traces, methods=["POST"])])
    async with serve_asgi(app) as endpoint:
        yield endpoint, spans
