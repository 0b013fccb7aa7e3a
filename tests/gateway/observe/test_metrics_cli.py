"""`gwanjong --transport http` with `[metrics]` and team tokens, as a real process: /metrics
answers 401 without a valid token, the figures with one, and a scout moves them; the JSON
log lines of `[logging] json` go to its stderr; on stdio without a port it refuses to start."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import config_file
from tests.gateway.http_gateway import cli, client, http_gateway
from tests.gateway.observe.test_metrics import at, figures
from tests.mcp import call

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]
TABLES = {"auth": {"mode": "tokens"}, "metrics": {"enabled": True}, "logging": {"json": True}}


def scout_calls(text: str) -> float:
    return at(figures(text), "gwanjong_tool_calls_total", tool="scout")


async def test_the_served_gateway_guards_and_counts(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    config = config_file(
        tmp_path, ["devto"], tables=TABLES, settings={"call_timeout_s": 20}, sandbox=sandbox.url
    )
    done = cli(config, "token", "add", "prometheus")
    assert done.returncode == 0, done.stderr
    token = done.stdout.strip()
    with http_gateway(config, log_level="INFO") as gw:
        metrics = gw.url.removesuffix("/mcp") + "/metrics"
        async with httpx.AsyncClient(timeout=30) as web:
            assert (await web.get(metrics)).status_code == 401
            bad = await web.get(metrics, headers={"authorization": "Bearer gwj_wrong"})
            assert bad.status_code == 401
            bearer = {"authorization": f"Bearer {token}"}
            before = await web.get(metrics, headers=bearer)
            assert before.status_code == 200 and scout_calls(before.text) == 0
            async with client(gw.url, token) as c:
                await call(c, "scout", topic="rust async cancellation", limit=5)
            after = await web.get(metrics, headers=bearer)
            assert scout_calls(after.text) == 1
        log = gw.log()
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    assert any(line["level"] == "INFO" for line in lines), log
    assert token not in log


def test_metrics_on_stdio_without_a_port_refuse_to_start(tmp_path: Path) -> None:
    done = cli(config_file(tmp_path, ["devto"], "live", tables={"metrics": {"enabled": True}}))
    assert done.returncode == 2
    assert "[metrics] port" in done.stderr and "--transport http" in done.stderr
    assert "Traceback" not in done.stderr
