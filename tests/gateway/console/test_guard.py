"""The console's door: the one-time link, the Host and Origin checks, the CSRF token, and
a decision on the page reaching the desk (fast tier: the fake forum, plain HTTP against
the Starlette app in-process)."""

from __future__ import annotations

import logging
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import httpx
import pytest
from fastmcp import Client
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gwanjong_gateway.console.app import Console
from gwanjong_gateway.rules.approvals import ApprovalStatus
from gwanjong_gateway.web import HEADERS, MAX_BODY, serve
from tests.fakes.platform import FakePlatform
from tests.gateway.console.helpers import (
    BASE,
    ORIGIN,
    PORT,
    TOPIC,
    Served,
    approval,
    gateway,
    pending,
    post,
    serving,
    sign_in,
    strike,
)

pytestmark = pytest.mark.anyio


async def test_the_sign_in_link_works_once_and_only_for_its_own_host(s: Served) -> None:
    assert (await s.http.get("/approvals")).status_code == 401
    link = s.console.signin_link().removeprefix(BASE)
    rebound = await s.http.get(link, headers={"host": f"attacker.example:{PORT}"})
    assert rebound.status_code == 403 and "Host" in rebound.text
    assert "set-cookie" not in rebound.headers  # and the link is not spent by it:
    first = await s.http.get(link)
    assert first.status_code == 303
    cookie = first.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    assert f"gwanjong_console_{PORT}=" in cookie
    assert (await s.http.get("/approvals")).status_code == 200
    assert (await s.http.get("/approvals", headers={"host": "127.0.0.1:9"})).status_code == 403
    s.http.cookies.clear()
    again = await s.http.get(link)
    assert again.status_code == 403
    assert "gwanjong console" in again.text and "again" in again.text
    assert (await s.http.get("/approvals")).status_code == 401


async def test_an_unused_sign_in_link_is_void_after_15_minutes(
    forum: FakePlatform, tmp_path: Path
) -> None:
    """The link may be read later where it was printed (the gateway's console writes it to
    stderr, which an MCP client keeps in its log): unused, it lives 15 minutes, not the
    session's 12 hours."""
    now = [1_000_000.0]
    async with serving(*gateway(tmp_path, forum), clock=lambda: now[0]) as s:  # type: ignore[arg-type]
        soon, late = (s.console.signin_link().removeprefix(BASE) for _ in range(2))
        now[0] += 14 * 60
        assert (await s.http.get(soon)).status_code == 303
        now[0] += 2 * 60
        assert (await s.http.get(late)).status_code == 403


async def test_every_answer_has_the_strict_headers(s: Served) -> None:
    await sign_in(s)
    for path in ("/approvals", "/static/console.css", "/nowhere"):
        answer = await s.http.get(path)
        for name, value in HEADERS.items():
            assert answer.headers.get(name) == value, (path, name)
    assert "script-src 'self'" in HEADERS["content-security-policy"]
    assert "unsafe-inline" not in HEADERS["content-security-policy"]


async def test_a_form_from_another_origin_without_its_csrf_token_or_too_large_changes_nothing(
    s: Served, forum: FakePlatform
) -> None:
    approval_id = await pending(s)
    csrf = await sign_in(s)
    form = {"csrf": csrf, "decision": "approve"}
    for origin in (
        {"origin": "http://evil.example"},
        {"origin": "null"},
        {},
        {"origin": "null", "sec-fetch-site": "cross-site"},
        {"origin": "http://evil.example", "sec-fetch-site": "same-origin"},
    ):
        refused = await s.http.post(f"/approvals/{approval_id}", data=form, headers=origin)
        assert refused.status_code == 403, origin
    for form in ({"decision": "approve"}, {"decision": "approve", "csrf": csrf[:-2] + "xx"}):
        refused = await s.http.post(f"/approvals/{approval_id}", data=form, headers=ORIGIN)
        assert refused.status_code == 403 and "CSRF" in refused.text
    big = "x" * (600 * 1024)  # refused before it is read
    refused = await post(s, f"/approvals/{approval_id}", csrf, decision="approve", text=big)
    assert refused.status_code == 413 and "too large" in refused.text
    assert (await approval(s.gw, approval_id)).status is ApprovalStatus.PENDING
    assert forum.writes == []


async def test_a_chunked_body_past_the_limit_is_refused_as_it_streams(
    s: Served, forum: FakePlatform
) -> None:
    approval_id = await pending(s)
    csrf = await sign_in(s)
    chunk = 60 * 1024
    sent: list[int] = []

    async def body() -> AsyncIterator[bytes]:
        # No Content-Length: httpx sends it chunked, so only counting the bytes can stop it.
        # Each field stays under the form parser's own limits: the form alone would take it.
        yield f"csrf={csrf}&decision=approve".encode()
        for n in range(12):  # 720 KB, if it were all read
            sent.append(chunk)
            yield f"&f{n}=".encode() + b"x" * chunk

    headers = {**ORIGIN, "content-type": "application/x-www-form-urlencoded"}
    refused = await s.http.post(f"/approvals/{approval_id}", content=body(), headers=headers)
    assert "content-length" not in refused.request.headers
    assert refused.status_code == 413 and "too large" in refused.text
    assert refused.headers["x-frame-options"] == "DENY"
    assert sum(sent) <= MAX_BODY + chunk  # nothing read past the chunk that crossed it
    assert (await approval(s.gw, approval_id)).status is ApprovalStatus.PENDING
    assert forum.writes == []


async def test_a_non_loopback_console_without_auth_is_refused_and_never_started(
    forum: FakePlatform, tmp_path: Path
) -> None:
    from gwanjong_gateway.console.serve import bind_problem

    gw, _ = gateway(tmp_path / "a", forum)
    assert bind_problem(Console(gw, host="127.0.0.1")) is None
    problem = bind_problem(Console(gw, host="0.0.0.0"))
    assert problem is not None and "[auth]" in problem
    team, _ = gateway(tmp_path / "c", forum, {"auth": {"mode": "tokens"}})
    assert "set [console] public_url" in (bind_problem(Console(team, host="0.0.0.0")) or "")
    _, mcp = gateway(tmp_path / "b", forum, {"console": {"enabled": True, "host": "10.0.0.1"}})
    with pytest.raises(Exception) as raised:  # the lifespan's error, however FastMCP wraps it
        async with Client(mcp) as client:
            await client.list_tools()
    assert "refusing to serve the console on 10.0.0.1" in repr(raised.value) + repr(
        raised.value.__cause__
    ) + str(getattr(raised.value, "exceptions", ""))


async def test_hidden_characters_in_the_text_to_send_are_flagged(s: Served) -> None:
    answer = await strike(
        s.client, "devto", "Rust async", "post", "Guards\u2060 around\u200b awaits.", TOPIC
    )
    approval_id = int(answer["approval"]["id"])
    await sign_in(s)
    page = await s.http.get(f"/approvals/{approval_id}")
    assert "2 invisible characters, marked" in page.text
    assert "Guards⟦U+2060⟧ around⟦U+200B⟧ awaits." in page.text
    assert "\u2060" not in page.text.split("<textarea")[0] and "\u200b" not in page.text
    plain = await strike(s.client, "devto", "Rust async", "post", "Plain words.", TOPIC)
    other = await s.http.get(f"/approvals/{plain['approval']['id']}")
    assert "invisible character" not in other.text


async def test_resume_clears_a_pause_and_needs_the_csrf_token(s: Served) -> None:
    from gwanjong_gateway.record.store import StrikeStore

    for _ in range(3):
        await s.gw.records.run(StrikeStore.record_failure, "devto", "HTTP 500", 3)
    csrf = await sign_in(s)
    page = await s.http.get("/usage")
    assert "paused" in page.text and "Resume devto" in page.text
    refused = await s.http.post("/usage/resume", data={"platform": "devto"}, headers=ORIGIN)
    assert refused.status_code == 403
    assert await s.gw.records.run(StrikeStore.paused, "devto")
    done = await post(s, "/usage/resume", csrf, platform="devto")
    assert done.status_code == 303
    assert await s.gw.records.run(StrikeStore.paused, "devto") == ""
    assert "Resume devto" not in (await s.http.get("/usage")).text


async def test_the_navigation_counts_are_behind_the_sign_in(s: Served) -> None:
    refused = await s.http.get("/counts.json")
    assert refused.status_code == 401 and "approvals" not in refused.text
    await pending(s)
    await sign_in(s)
    counts = await s.http.get("/counts.json")
    assert counts.status_code == 200
    assert counts.json() == {"approvals": 1, "handoffs": 0}  # no watcher here: no inbox
    assert "connect-src 'self'" in counts.headers["content-security-policy"]


async def test_the_listeners_own_errors_go_through_our_log_handlers(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An app error uvicorn logs reaches the process's handlers (secrets masked, one line
    a message), not a stderr handler of uvicorn's own that skips both."""
    uvicorn_log = logging.getLogger("uvicorn")  # as a process that never served before
    monkeypatch.setattr(uvicorn_log, "propagate", True)
    monkeypatch.setattr(uvicorn_log, "handlers", [])

    async def boom(request: Request) -> Response:
        raise RuntimeError("the app failed")

    sock = socket.create_server(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    async with anyio.create_task_group() as tg:
        tg.start_soon(serve, Starlette(routes=[Route("/", boom)]), sock)
        async with httpx.AsyncClient() as http:
            assert (await http.get(url)).status_code == 500
        tg.cancel_scope.cancel()
    said = [r for r in caplog.records if r.name.startswith("uvicorn")]
    assert said and "the app failed" in (said[0].exc_text or ""), said
