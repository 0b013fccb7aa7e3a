"""Trace spans for a platform server's HTTP calls, and the OpenTelemetry SDK when tracing is on.

FastMCP already continues the trace a caller sends in a request's ``_meta`` (its server span)
and sends the current one on in a client's ``_meta``. What it cannot see is a platform
server's own HTTP call to its platform: :func:`http_span` is one CLIENT span per request
(named and attributed per OpenTelemetry's HTTP conventions) that also writes the W3C
``traceparent``/``tracestate`` headers into the request. The httpx servers get it through
:class:`TracedTransport` (``GateTransport`` uses it too); the aiohttp gates call it directly.

Only the OpenTelemetry API is used here, so without an SDK every span is a no-op and no
header is written. :func:`start_tracing` installs the SDK (the gateway's ``observe`` extra)
with an OTLP/HTTP exporter; a spawned platform server does so from its environment
(:func:`start_tracing_from_env`: the gateway passes ``OTEL_EXPORTER_OTLP_ENDPOINT``).
"""

from __future__ import annotations

import logging
from collections.abc import Generator, Mapping, MutableMapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import httpx
from opentelemetry import propagate, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

log = logging.getLogger(__name__)

TRACER = "gwanjong"
#: the standard variables a spawned server reads (the gateway sets them from gateway.toml)
ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_ENDPOINT"
SERVICE_ENV = "OTEL_SERVICE_NAME"
_DEFAULT_PORTS = {"http": 80, "https": 443}


class TracingUnavailable(RuntimeError):
    """Tracing is configured but the OpenTelemetry SDK is not installed."""


def _url_without_secrets(scheme: str, host: str, port: int | None, path: str) -> str:
    # No query string and no user info: either may carry a token.
    netloc = host if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    return f"{scheme}://{netloc}{path}"


@contextmanager
def http_span(
    method: str,
    scheme: str,
    host: str,
    port: int | None,
    path: str,
    headers: MutableMapping[str, str],
) -> Generator[Span, None, None]:
    """One CLIENT span around an HTTP request; ``headers`` get the trace context.

    Call :func:`set_status` with the response's status code; an exception is recorded."""
    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        # No SDK installed: no span to make (the API's would be a no-op, at ~50 µs a
        # request); a trace context the caller is in still goes on.
        if trace.get_current_span().get_span_context().is_valid:
            propagate.inject(headers)
        yield trace.INVALID_SPAN
        return
    attributes: dict[str, str | int] = {
        "http.request.method": method.upper(),
        "server.address": host,
        "url.full": _url_without_secrets(scheme, host, port, path),
    }
    if port is not None or scheme in _DEFAULT_PORTS:
        attributes["server.port"] = port if port is not None else _DEFAULT_PORTS[scheme]
    tracer = trace.get_tracer(TRACER)
    with tracer.start_as_current_span(
        method.upper(),
        kind=SpanKind.CLIENT,
        attributes=attributes,
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        propagate.inject(headers)
        try:
            yield span
        except BaseException as exc:
            if span.is_recording():
                span.set_attribute("error.type", type(exc).__qualname__)
                span.record_exception(exc)
                span.set_status(Status(StatusCode.ERROR))
            raise


def set_status(span: Span, status: int) -> None:
    """The response's status; 4xx and 5xx are errors for a client span (the convention)."""
    if not span.is_recording():
        return
    span.set_attribute("http.response.status_code", status)
    if status >= 400:
        span.set_attribute("error.type", str(status))
        span.set_status(Status(StatusCode.ERROR))


async def traced_request(
    client: httpx.AsyncClient, method: str, url: str, **kwargs: Any
) -> httpx.Response:
    """``client.request(method, url, **kwargs)`` in an :func:`http_span` (the client keeps
    its own transport, proxies from the environment included)."""
    request = client.build_request(method, url, **kwargs)
    u = request.url
    with http_span(request.method, u.scheme, u.host, u.port, u.path, request.headers) as span:
        response = await client.send(request)
        set_status(span, response.status_code)
        return response


class TracedTransport(httpx.AsyncBaseTransport):
    """An httpx transport that puts each request in an :func:`http_span`."""

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self.inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        carrier: dict[str, str] = {}
        with http_span(request.method, url.scheme, url.host, url.port, url.path, carrier) as span:
            request.headers.update(carrier)
            response = await self.inner.handle_async_request(request)
            set_status(span, response.status_code)
            return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def start_tracing(
    endpoint: str, service: str, exporter: SpanExporter | None = None
) -> TracerProvider:
    """Install the OpenTelemetry SDK as this process's tracer provider, exporting in
    batches over OTLP/HTTP to ``<endpoint>/v1/traces`` (or to ``exporter``, for tests).

    Raises TracingUnavailable when the SDK is not installed."""
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        raise TracingUnavailable(
            "tracing is configured but the OpenTelemetry SDK is not installed: install "
            "gwanjong's observe extra (`pip install 'gwanjong[observe]'`)"
        ) from None
    if exporter is None:
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError:
            raise TracingUnavailable(
                "tracing is configured but the OTLP exporter is not installed: install "
                "gwanjong's observe extra (`pip install 'gwanjong[observe]'`)"
            ) from None
        exporter = OTLPSpanExporter(endpoint=endpoint.rstrip("/") + "/v1/traces")
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return provider


def start_tracing_from_env(environ: Mapping[str, str], service: str) -> TracerProvider | None:
    """In a spawned platform server: tracing when its environment names an OTLP endpoint
    (and FastMCP's spans on), else nothing. A missing SDK is logged, never fatal."""
    endpoint = environ.get(ENDPOINT_ENV, "")
    if not endpoint:
        return None
    try:
        return start_tracing(endpoint, environ.get(SERVICE_ENV) or service)
    except TracingUnavailable as exc:
        log.warning("%s", exc)
        return None
