"""The sandbox's write faults on its own clock: read-back lag hides a new article from
reads until the clock passes it; a slow write lands late but lands; a write whose answer is
lost (a 5xx or a dropped connection) is applied all the same."""

from __future__ import annotations

import httpx
import pytest

from gwanjong_sandbox.app import SandboxApp
from gwanjong_sandbox.control import SandboxControl
from gwanjong_sandbox.devto import API_KEY
from gwanjong_sandbox.state import Fault, SandboxState
from tests.fakes.clock import FakeClock

pytestmark = pytest.mark.anyio
ARTICLE = {
    "article": {
        "title": "Lagging article",
        "body_markdown": "zebrafish",
        "published": True,  # else a draft (Forem's default), which no listing shows
        "ai_disclosure_level": "no_ai",
    }
}


def in_process(state: SandboxState) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(SandboxApp(state)), base_url="http://sb")


async def found(client: httpx.AsyncClient) -> bool:
    response = await client.get("/api/articles/search", params={"q": "zebrafish"})
    return any(a["title"] == "Lagging article" for a in response.json())


async def test_read_back_lag_follows_the_sandbox_clock() -> None:
    clock = FakeClock()
    state = SandboxState(clock=clock.time)
    state.faults.append(Fault("devto", kind="lag", seconds=5))
    async with in_process(state) as client:
        made = await client.post("/api/articles", json=ARTICLE, headers={"api-key": API_KEY})
        assert made.status_code == 201
        assert len(state.writes) == 1 and not await found(client)
        clock.advance(4.9)
        assert not await found(client)
        clock.advance(0.2)
        assert await found(client)
    assert [f.kind for f in state.faults] == ["lag"]  # a standing fault, like latency


async def test_a_slow_write_is_applied_late() -> None:
    state = SandboxState()
    state.faults.append(Fault("devto", kind="slow_write", seconds=0.3, match="/api/articles"))
    async with in_process(state) as client:
        made = await client.post("/api/articles", json=ARTICLE, headers={"api-key": API_KEY})
        assert made.status_code == 201 and made.json()["title"] == "Lagging article"
        assert len(state.writes) == 1 and await found(client)
    assert state.faults == []


async def test_a_slow_write_cut_before_its_whole_body_is_no_write() -> None:
    """A client gone after the first bytes sent no request: nothing is applied or held."""
    state = SandboxState()
    state.faults.append(Fault("devto", kind="slow_write", seconds=0.3, match="/api/articles"))
    app, sent = SandboxApp(state), list[object]()
    parts = iter([{"type": "http.request", "body": b'{"arti', "more_body": True}])
    scope = {"type": "http", "method": "POST", "path": "/api/articles", "headers": []}

    async def receive() -> dict[str, object]:
        return next(parts, {"type": "http.disconnect"})

    async def send(message: object) -> None:
        sent.append(message)

    await app(scope, receive, send)
    assert state.writes == [] and sent == [] and not any("held" in k for k in app.paths)


async def test_apply_then_status_applies_the_write_and_answers_the_status() -> None:
    state = SandboxState()
    state.faults.append(Fault("devto", kind="apply_then_status", status=502, method="POST"))
    async with in_process(state) as client:
        assert not await found(client)  # a GET: the fault waits for a POST
        made = await client.post("/api/articles", json=ARTICLE, headers={"api-key": API_KEY})
        assert made.status_code == 502
        assert len(state.writes) == 1 and await found(client)
    assert state.faults == []


async def test_apply_then_drop_applies_the_write_and_answers_nothing(
    sandbox: SandboxControl,
) -> None:
    """Over a real socket (the sandbox process): the connection closes without a byte."""
    sandbox.fault("devto", "apply_then_drop", method="POST", match="/api/articles")
    async with httpx.AsyncClient(base_url=sandbox.url) as client:
        with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
            await client.post("/api/articles", json=ARTICLE, headers={"api-key": API_KEY})
        assert await found(client)  # applied all the same
    assert len(sandbox.writes("devto")) == 1
