"""The Prometheus figures: a team gateway (tokens, real HTTP on loopback, a fake platform)
serves /metrics behind its sign-in; a scout and a strike move the counters, the
histograms and the pending-approval gauge; a loopback listener of its own serves them
for a stdio gateway."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client, FastMCP
from prometheus_client.parser import text_string_to_metric_families

from gwanjong_gateway.observe.attach import Observed, ObserveProblem, attach
from gwanjong_gateway.observe.metrics import Metrics
from gwanjong_gateway.platforms.outcome import Outcome
from gwanjong_shared.contract.errors import ErrorKind
from gwanjong_shared.contract.rate import RateWindow
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import FORUM
from tests.gateway.helpers import gateway_of, opportunity_for
from tests.gateway.http_gateway import free_port
from tests.gateway.team_gateway import Team, team_gateway
from tests.mcp import call

pytestmark = pytest.mark.anyio
Figures = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def figures(text: str) -> Figures:
    out: Figures = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def at(f: Figures, name: str, **labels: str) -> float:
    return f.get((name, tuple(sorted(labels.items()))), 0.0)


METERED = {
    "metrics": {"enabled": True},
    "review": {"ask": "queue"},  # a confirm-mode strike waits for a person
}


def metrics_of(team: Team) -> str:
    return team.url.removesuffix("/mcp") + "/metrics"


async def test_a_scout_and_a_strike_move_the_figures_and_a_scrape_needs_a_token(
    tmp_path: Path,
) -> None:
    fake = FakePlatform(FORUM)
    async with (
        team_gateway(tmp_path, fake, writes="confirm", tables=METERED) as team,
        httpx.AsyncClient() as web,
    ):
        metrics, token = metrics_of(team), team.tokens["alice"]
        none = await web.get(metrics)
        assert none.status_code == 401, none.text
        said = none.json()["error_description"]  # how to get and send a token, not "wrong"
        assert "gwanjong token add" in said and "Authorization: Bearer" in said, said
        assert "wrong" not in said and said in none.headers["www-authenticate"]
        wrong = await web.get(metrics, headers={"authorization": "Bearer nope"})
        assert wrong.status_code == 401 and "gwanjong token add" in wrong.text
        assert "wrong or revoked" in wrong.json()["error_description"]
        bearer = {"authorization": f"Bearer {token}"}
        first = await web.get(metrics, headers=bearer)
        assert first.status_code == 200
        assert first.headers["content-type"].startswith("text/plain")
        before = figures(first.text)
        assert at(before, "gwanjong_approvals_pending") == 0
        assert at(before, "gwanjong_record_up") == 1

        fake.fail("search", ErrorKind.RATE_LIMITED, retry_after=30)
        async with team.client("alice") as c:
            scouted = await call(c, "scout", topic="rust async cancellation", limit=5)
            during = figures((await web.get(metrics, headers=bearer)).text)
            oid = opportunity_for(scouted, "devto", "Rust async")
            await c.call_tool("draft", {"opportunity_id": oid})
            wrong = await c.call_tool("draft", {"opportunity_id": "nope"}, raise_on_error=False)
            assert wrong.is_error and wrong.structured_content is not None
            got = wrong.structured_content["error"]["kind"]  # an order hint: scout first
            assert got == "needs_previous_step", wrong.structured_content
            await call(c, "strike", opportunity_id=oid, action="post", content="Hi", title="Hello")
        after = figures((await web.get(metrics, headers=bearer)).text)

    devto_search = {"platform": "devto", "tool": "search"}
    assert at(during, "gwanjong_platform_calls_total", **devto_search) >= 1
    assert at(during, "gwanjong_tool_calls_total", tool="scout") == 1
    assert at(during, "gwanjong_platform_errors_total", **devto_search, kind="rate_limited") == 1
    assert at(after, "gwanjong_platform_call_seconds_count", **devto_search) >= 1
    assert at(after, "gwanjong_platform_calls_total", platform="devto", tool="validate") >= 1
    assert at(after, "gwanjong_tool_calls_total", tool="strike") == 1
    assert at(after, "gwanjong_tool_calls_total", tool="draft") == 2
    draft_errors = {
        labels: value
        for (name, labels), value in after.items()
        if name == "gwanjong_tool_errors_total" and ("tool", "draft") in labels
    }
    # counted as the kind the client got (every kind: tests/gateway/observe/test_error_kinds.py)
    assert draft_errors == {(("kind", got), ("tool", "draft")): 1.0}, draft_errors
    assert at(after, "gwanjong_tool_call_seconds_count", tool="strike") == 1
    assert at(after, "gwanjong_approvals_pending") == 1  # the strike waits for a person
    assert at(after, "gwanjong_writes_unsettled") == 0
    assert fake.tools.count("write_post") == 0  # nothing was posted meanwhile


async def test_without_metrics_nothing_is_served(tmp_path: Path) -> None:
    async with team_gateway(tmp_path, FakePlatform(FORUM)) as team, httpx.AsyncClient() as web:
        bearer = {"authorization": f"Bearer {team.tokens['alice']}"}
        assert (await web.get(metrics_of(team), headers=bearer)).status_code == 404


def attached_on_stdio(tmp_path: Path, **metrics: Any) -> tuple[FastMCP[Any], Observed]:
    """A stdio gateway on the fake forum with ``metrics`` in its [metrics] table, attached."""
    gw, mcp = gateway_of(
        tmp_path, FakePlatform(FORUM), tables={"metrics": {"enabled": True, **metrics}}
    )
    return mcp, attach(mcp, gw, gw.config, None, "stdio")


async def test_a_stdio_gateway_serves_metrics_on_its_own_loopback_port(tmp_path: Path) -> None:
    port = free_port()
    mcp, observed = attached_on_stdio(tmp_path, port=port)
    async with observed.running(), Client(mcp) as c, httpx.AsyncClient() as web:
        assert observed.sock is not None and observed.sock.getsockname()[1] == port
        await c.call_tool("scout", {"topic": "rust async cancellation", "limit": 5})
        got = await web.get(f"http://127.0.0.1:{port}/metrics")
        assert got.status_code == 200
        assert at(figures(got.text), "gwanjong_tool_calls_total", tool="scout") == 1
        # a page whose name was rebound to 127.0.0.1 reads nothing (DNS rebinding)
        rebound = await web.get(got.url, headers={"host": f"evil.example:{port}"})
        assert rebound.status_code == 403 and "gwanjong" not in rebound.text


def test_rate_windows_and_tool_labels() -> None:
    metrics = Metrics()
    window = RateWindow(remaining=7, limit=300)
    metrics.observe_platform("reddit", "search", Outcome(ok=True, rate=window), 0.2)
    metrics.observe_platform(
        "reddit", "write_comment", Outcome.failure(ErrorKind.RATE_LIMITED, "wait", 30), 0.1
    )
    f = figures(metrics.render()[0].decode())
    assert at(f, "gwanjong_rate_limit_remaining", platform="reddit") == 7
    assert at(f, "gwanjong_rate_limit_limit", platform="reddit") == 300
    limited = {"platform": "reddit", "tool": "write_comment", "kind": "rate_limited"}
    assert at(f, "gwanjong_platform_errors_total", **limited) == 1
    # a client names the tool it calls: no label from a name that is not one, nor past the cap
    assert metrics.tool_label("bad name\n{}") == "other"
    for i in range(300):
        metrics.tool_label(f"t{i}")
    assert metrics.tool_label("one_more") == "other"
    assert metrics.tool_label("t0") == "t0"


def test_metrics_on_stdio_need_a_free_port(tmp_path: Path) -> None:
    with pytest.raises(ObserveProblem, match=r"\[metrics\] port"):
        attached_on_stdio(tmp_path)
    # a port in use stops the gateway with the reason
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(ObserveProblem, match=rf"cannot listen on 127.0.0.1:{port}"):
            attached_on_stdio(tmp_path, port=port)
