"""The console behind a TLS-terminating proxy: `[console] public_url = "https://…"` makes
its https origin accepted (a POST through the proxy is no longer refused), the session
cookie `Secure` and the sign-in links lead through the proxy. Only the config says so:
an `X-Forwarded-Proto` header makes nothing https or ours. In-process app, then the real
listener (uvicorn on loopback) with the headers a proxy sends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from fastmcp import Client

from gwanjong_gateway.config import ConfigError, parse
from gwanjong_gateway.console.app import Console
from gwanjong_gateway.console.routes import build_app
from gwanjong_gateway.console.serve import serve
from gwanjong_gateway.rules.approvals import ApprovalStatus
from tests.fakes.platform import FakePlatform
from tests.gateway.console.helpers import BASE, PORT, approval, csrf_of, gateway, serving, strike
from tests.gateway.helpers import config_text
from tests.mcp import until

pytestmark = pytest.mark.anyio
PUBLIC = "https://gwanjong.example.test"
DEADLINE_S = 60  # generous: only catches a hang
PROXIED: dict[str, dict[str, object]] = {"console": {"public_url": PUBLIC}}


async def pending(client: Client[Any]) -> int:
    answer = await strike(client, "devto", "Rust async", "post", "Through TLS.", "rust")
    assert answer["status"] == "pending_approval", answer
    return int(answer["approval"]["id"])


async def test_with_public_url_an_https_origin_is_accepted_and_the_cookie_secure(
    forum: FakePlatform, tmp_path: Path
) -> None:
    # The browser's side of the proxy: https, the public host name.
    async with serving(*gateway(tmp_path, forum, PROXIED), base=PUBLIC) as s:
        approval_id = await pending(s.client)
        link = s.console.signin_link()
        assert link.startswith(f"{PUBLIC}/signin/"), link
        landed = await s.http.get(link.removeprefix(PUBLIC))
        cookie = landed.headers["set-cookie"].lower()
        assert "secure" in cookie and "httponly" in cookie and "samesite=strict" in cookie
        page = await s.http.get(f"/approvals/{approval_id}")
        form = {"csrf": csrf_of(page.text), "decision": "approve"}
        done = await s.http.post(f"/approvals/{approval_id}", data=form, headers={"origin": PUBLIC})
        assert done.status_code == 200 and "posted" in done.text
    assert len(forum.writes) == 1


async def test_without_public_url_it_speaks_its_own_http_address_only(
    forum: FakePlatform, tmp_path: Path
) -> None:
    gw, mcp = gateway(tmp_path, forum)
    console = Console(gw, port=PORT)
    transport = httpx.ASGITransport(app=build_app(console))
    async with (
        Client(mcp) as client,
        httpx.AsyncClient(transport=transport, base_url=PUBLIC) as proxied,
        httpx.AsyncClient(transport=transport, base_url=BASE) as http,
    ):
        approval_id = await pending(client)
        through = await proxied.get(console.signin_link().removeprefix(BASE))
        assert through.status_code == 403  # the proxy's Host is not this console's
        landed = await http.get(console.signin_link().removeprefix(BASE))
        assert "secure" not in landed.headers["set-cookie"].lower()
        page = await http.get(f"/approvals/{approval_id}")
        form = {"csrf": csrf_of(page.text), "decision": "approve"}
        https = {"origin": f"https://127.0.0.1:{PORT}", "x-forwarded-proto": "https"}
        refused = await http.post(f"/approvals/{approval_id}", data=form, headers=https)
        assert refused.status_code == 403 and "Origin" in refused.text
    assert (await approval(gw, approval_id)).status is ApprovalStatus.PENDING
    assert forum.writes == []


@pytest.mark.parametrize(
    "url",
    [
        "https://gw.example.test/console",
        "ftp://gw.example.test",
        "https://u@gw.example",
        "https://:pw-s3cret@gw.example",  # a password without a user
    ],
)
def test_public_url_is_an_origin(tmp_path: Path, url: str) -> None:
    with pytest.raises(ConfigError, match=r"console\.public_url: .* is not an origin") as refused:
        parse(config_text(tmp_path, [], tables={"console": {"public_url": url}}))
    assert "s3cret" not in str(refused.value)  # the error never echoes a password
    everywhere = {"console": {"host": "0.0.0.0"}}  # links to http://0.0.0.0:port
    with pytest.raises(ConfigError, match=r"console: .* set public_url to the address people"):
        parse(config_text(tmp_path, [], tables=everywhere))


async def test_the_real_listener_behind_a_tls_proxy(forum: FakePlatform, tmp_path: Path) -> None:
    gw, _ = gateway(tmp_path, forum, PROXIED)
    console = Console(gw, port=0)
    links: list[str] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(serve, console, links.append)
        await until(lambda: bool(links), DEADLINE_S, every=0.02)
        assert links[0].startswith(f"{PUBLIC}/signin/")  # what the operator is told to open
        behind = f"http://127.0.0.1:{console.port}"  # where the proxy forwards
        proxy = {"host": "gwanjong.example.test", "x-forwarded-proto": "https"}
        async with httpx.AsyncClient(base_url=behind, headers=proxy) as http:
            landed = await http.get("/signin/" + links[0].rpartition("/signin/")[2])
            assert landed.status_code == 303, landed.text
            assert "secure" in landed.headers["set-cookie"].lower()
            # httpx keeps a Secure cookie from plain http: send it as the browser would
            http.cookies.set(console.cookie, landed.cookies[console.cookie])
            page = await http.get("/approvals")
            assert page.status_code == 200
            csrf = csrf_of(page.text)
            # X-Forwarded-Proto names no origin: another https origin is still refused
            forged = await http.post(
                "/signout", data={"csrf": csrf}, headers={"origin": "https://evil.example"}
            )
            assert forged.status_code == 403
            out = await http.post("/signout", data={"csrf": csrf}, headers={"origin": PUBLIC})
            assert out.status_code == 303
        tg.cancel_scope.cancel()
