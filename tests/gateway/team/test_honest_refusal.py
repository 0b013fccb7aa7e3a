"""The tokens-mode 401 says the token is wrong or revoked, not FastMCP's OAuth advice."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastmcp.server.auth.middleware import RequireAuthMiddleware
from starlette.authentication import AuthCredentials
from starlette.requests import HTTPConnection

from gwanjong_gateway.config import parse
from gwanjong_gateway.team.auth import WRONG_TOKEN, HonestRefusal, http_middleware

pytestmark = pytest.mark.anyio


async def _endpoint(scope: Any, receive: Any, send: Any) -> None:
    raise AssertionError("a refused request never reaches the endpoint")


async def _run(app: Any) -> tuple[dict[str, Any], bytes]:
    # What FastMCP's bearer backend leaves for a token it could not verify.
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": [(b"authorization", b"Bearer gwj_wrong")],
        "auth": AuthCredentials([]),
        "user": None,
    }
    HTTPConnection(scope)  # a well-formed scope
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start, *bodies = sent
    return start, b"".join(m.get("body", b"") for m in bodies)


async def test_fastmcps_401_is_reworded() -> None:
    fastmcp_app = RequireAuthMiddleware(_endpoint, required_scopes=[])
    start, body = await _run(fastmcp_app)
    assert start["status"] == 401 and b"re-register" in body  # what FastMCP says
    start, body = await _run(HonestRefusal(fastmcp_app))
    headers = dict(start["headers"])
    assert start["status"] == 401
    assert json.loads(body)["error_description"] == WRONG_TOKEN
    assert int(headers[b"content-length"]) == len(body)
    assert b"re-register" not in headers[b"www-authenticate"]
    assert b'error="invalid_token"' in headers[b"www-authenticate"]


def test_only_in_tokens_mode() -> None:
    assert http_middleware(parse('[auth]\nmode = "tokens"\n'), None)
    assert http_middleware(parse(""), None) == []
