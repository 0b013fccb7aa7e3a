"""One trace across processes: the gateway (in this process) and a spawned Dev.to server
(`isolation = "process"`, its HTTP to the sandbox) both export over OTLP/HTTP to a
collector the test serves; one strike sent with a `traceparent` is one trace in it."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client
from opentelemetry import context as otel_context
from opentelemetry import propagate

from gwanjong_gateway.config import parse
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.observe.attach import attach
from gwanjong_gateway.server import build_gateway
from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import config_text, drafted
from tests.gateway.observe.collector import Collected, collector
from tests.mcp import approves, call, until, until_up
from tests.platforms import SPECS

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]

TRACE_ID = 0x0AF7651916CD43DD8448EB211C80319C
PARENT_ID = 0xB7AD6B7169203331
TRACEPARENT = f"00-{TRACE_ID:032x}-{PARENT_ID:016x}-01"


def complete(spans: list[Collected]) -> bool:
    services = {s.service for s in spans if s.trace_id == TRACE_ID}
    return {"gwanjong", "gwanjong-devto"} <= services and any(
        s.name == "POST" and s.service == "gwanjong-devto" for s in spans
    )


async def test_a_spawned_platform_server_continues_the_trace(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    async with collector() as (endpoint, spans):
        text = config_text(
            tmp_path,
            ["devto"],
            "live",
            platform={"isolation": "process", "min_interval_s": 0},
            tables={"telemetry": {"otlp_endpoint": endpoint}},
        )
        config = parse(text)
        gw = Gateway(config, environ=SPECS["devto"].env(sandbox.url))
        mcp = build_gateway(config, gateway=gw)
        observed = attach(mcp, gw, config, None, "stdio")
        # a Dev.to article waits for a person even in live mode: asked within the call
        # (the 2025-11-25 era), so the strike stays one call and one trace
        person = {"mode": "legacy", "elicitation_handler": approves}
        async with observed.running(), Client(mcp, timeout=90, **person) as client:
            await until_up(client, ["devto"])  # a cold start may outlast one call's time
            oid = await drafted(client)
            token = otel_context.attach(propagate.extract({"traceparent": TRACEPARENT}))
            try:
                post = {"content": "Guards around every await.", "title": "Cancellation-safe"}
                struck = await call(client, "strike", opportunity_id=oid, action="post", **post)
            finally:
                otel_context.detach(token)
            assert struck["status"] == "posted", struck
        # The gateway flushed when it stopped; the server exports as it exits.
        await until(lambda: complete(spans), 60)
    traced = [s for s in spans if s.trace_id == TRACE_ID]
    ids = {s.span_id for s in traced}
    orphans = [s.name for s in traced if s.parent_id not in ids and s.parent_id != PARENT_ID]
    assert orphans == []
    by_id = {s.span_id: s for s in traced}
    [http] = [s for s in traced if s.name == "POST" and s.service == "gwanjong-devto"]
    server_tool = by_id[http.parent_id]
    assert server_tool.service == "gwanjong-devto"
    assert server_tool.attributes.get("gen_ai.tool.name") == "write_post"
    assert http.attributes.get("http.response.status_code") == 201
    # up the chain from the platform's HTTP call to the gateway's strike tool span
    chain = []
    at = http
    while at.parent_id in by_id:
        at = by_id[at.parent_id]
        chain.append((at.service, at.name))
    assert ("gwanjong", "tools/call write_post") in chain
    assert ("gwanjong", "tools/call strike") in chain
    assert at.parent_id == PARENT_ID  # the top continues the client's traceparent


async def test_a_traced_spawned_servers_reason_keeps_its_name(tmp_path: Path) -> None:
    """Its service name is not a secret: a failing start still reads as that server's."""
    text = config_text(
        tmp_path,
        ["devto"],
        platform={"isolation": "process"},
        tables={"telemetry": {"otlp_endpoint": "http://127.0.0.1:9"}},
    )
    environ = {"DEVTO_READS_PER_MINUTE": "-1", "OTEL_EXPORTER_OTLP_HEADERS": "x-key=s3cr3tk3y"}
    gw = Gateway(parse(text), environ=environ)
    upstream = gw.upstreams.get("devto")
    assert upstream is not None
    try:
        assert await upstream.ensure() is None
        reason = upstream.reason
    finally:
        await gw.aclose()
    assert "gwanjong-devto: bad settings" in reason, reason
    assert "s3cr3tk3y" not in reason
