"""The one host gate (Bluesky's and X's httpx transport, X's tweepy middleware, Reddit's
requestor): a foreign host is refused before anything is sent; answers feed the limiter."""

from __future__ import annotations

import httpx
import pytest

from gwanjong_shared.kit.host_gate import GateTransport, HostAllowList, HostNotAllowed
from gwanjong_shared.kit.ratelimit import Limiter

pytestmark = pytest.mark.anyio


class Recorder(httpx.AsyncBaseTransport):
    """The network side: records what reached it and answers with a set response."""

    def __init__(self, status: int = 200, headers: dict[str, str] | None = None) -> None:
        self.sent: list[httpx.Request] = []
        self.status, self.headers = status, headers or {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        return httpx.Response(self.status, headers=self.headers, json={})


def test_the_allow_list_takes_names_and_patterns_in_any_case() -> None:
    allowed = HostAllowList(["API.X.com", " *.host.bsky.network ", ""])
    assert allowed.patterns == frozenset({"api.x.com", "*.host.bsky.network"})
    assert allowed.allows("api.x.com") and allowed.allows("Api.X.Com")
    assert allowed.allows("morel.us-east.host.bsky.network")
    assert not allowed.allows("x.com") and not allowed.allows("host.bsky.network.evil.example")
    with pytest.raises(HostNotAllowed) as refused:
        allowed.check("Evil.Example")
    assert refused.value.host == "evil.example"


def test_a_refusal_is_a_transport_error_for_httpx_callers() -> None:
    # Bluesky's SDK lets httpx transport errors through to the adapter's own handling.
    assert issubclass(HostNotAllowed, httpx.TransportError)


@pytest.mark.parametrize("url", ["https://evil.example/steal", "https://x.com.evil.example/"])
async def test_a_foreign_host_is_refused_before_sending(url: str) -> None:
    network = Recorder()
    gate = GateTransport(
        HostAllowList(["x.com"]), Limiter("X"), lambda m, p: f"{m} {p}", inner=network
    )
    async with httpx.AsyncClient(transport=gate) as http:
        with pytest.raises(HostNotAllowed):
            await http.get(url)
    assert network.sent == []


async def test_a_redirected_request_keeps_the_platform_host_and_feeds_the_limiter() -> None:
    network = Recorder(429, {"Retry-After": "30"})
    limiter = Limiter("X")
    gate = GateTransport(
        HostAllowList(["x.com"]),
        limiter,
        lambda method, path: f"{method} {path}",
        target="http://127.0.0.1:9",
        inner=network,
    )
    async with httpx.AsyncClient(transport=gate) as http:
        answer = await http.get("https://x.com/i/api/thing")
    assert answer.status_code == 429
    [sent] = network.sent
    assert (sent.url.scheme, sent.url.host, sent.url.port) == ("http", "127.0.0.1", 9)
    assert sent.headers["host"] == "x.com"
    assert limiter.wait_s("GET /i/api/thing") > 0
    assert limiter.wait_s("GET /other") == 0
