"""What an OAuth-capable client learns from the gateway over real HTTP (uvicorn on
loopback). jwt mode: RFC 9728 protected-resource metadata naming `[auth] issuer`, and a
401 whose `WWW-Authenticate` points at it. tokens mode: no metadata at all and a 401 that
says to send a gwanjong token, so no client starts an OAuth flow that cannot work."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from mcp.server.auth.routes import build_resource_metadata_url
from pydantic import AnyHttpUrl

from gwanjong_gateway.config import parse
from gwanjong_gateway.server import build_gateway
from gwanjong_gateway.team.auth import NO_TOKEN, WRONG_TOKEN, build_auth, http_middleware
from gwanjong_gateway.team.protected_resource import metadata_path, resource_of
from tests.fakes.platform import FakePlatform
from tests.gateway.helpers import config_text, patient_gateway
from tests.gateway.http_gateway import client, initialize, serve_app
from tests.gateway.team.test_auth_jwt_http import AUDIENCE, ISSUER, Issuer, auth_table
from tests.gateway.team_gateway import team_gateway
from tests.mcp import call

pytestmark = pytest.mark.anyio
METADATA = "https://gwanjong.example.test/.well-known/oauth-protected-resource/mcp"
WELL_KNOWN = "/.well-known/oauth-protected-resource"


@contextlib.asynccontextmanager
async def jwt_gateway(
    tmp: Path, fake: FakePlatform, **auth: Any
) -> AsyncIterator[tuple[str, Issuer]]:
    idp = Issuer(tmp)
    config = parse(config_text(tmp, ["devto"], tables=auth_table(idp.jwks, **auth)))
    gw = patient_gateway(config, {}, {"devto": fake.server()})
    verifier = build_auth(config)
    mcp = build_gateway(config, gateway=gw, auth=verifier)
    async with serve_app(mcp, http_middleware(config, verifier)) as url:
        yield url, idp


async def get(url: str) -> httpx.Response:
    async with httpx.AsyncClient(timeout=30) as http:
        return await http.get(url)


async def test_jwt_mode_serves_protected_resource_metadata(
    forum: FakePlatform, tmp_path: Path
) -> None:
    async with jwt_gateway(tmp_path, forum) as (url, idp):
        root = url.removesuffix("/mcp")
        for path in (WELL_KNOWN + "/mcp", WELL_KNOWN):  # RFC 9728 §3.1, then the fallback
            answer = await get(root + path)
            assert answer.status_code == 200, path
            assert answer.json() == {
                "resource": AUDIENCE,
                "authorization_servers": [ISSUER],  # exactly as configured
                "bearer_methods_supported": ["header"],
                "resource_name": "gwanjong",
            }
        missing = await initialize(url, None)
        assert missing.status_code == 401
        assert missing.headers["www-authenticate"] == f'Bearer resource_metadata="{METADATA}"'
        wrong = await initialize(url, "not.a.jwt")
        assert wrong.status_code == 401
        challenge = wrong.headers["www-authenticate"]
        assert 'error="invalid_token"' in challenge
        assert f'resource_metadata="{METADATA}"' in challenge
        # a signed-in client still works
        async with client(url, idp.token("alice")) as c:
            assert "platforms" in await call(c, "status")


async def test_jwt_scopes_are_advertised_and_asked_for(forum: FakePlatform, tmp_path: Path) -> None:
    async with jwt_gateway(tmp_path, forum, required_scopes=["gwanjong:use"]) as (url, _):
        doc = (await get(url.removesuffix("/mcp") + WELL_KNOWN + "/mcp")).json()
        assert doc["scopes_supported"] == ["gwanjong:use"]
        challenge = (await initialize(url, None)).headers["www-authenticate"]
        assert 'scope="gwanjong:use"' in challenge
        assert f'resource_metadata="{METADATA}"' in challenge


async def test_jwt_audience_that_is_no_url_serves_no_metadata(
    forum: FakePlatform, tmp_path: Path
) -> None:
    async with jwt_gateway(tmp_path, forum, audience="gwanjong-api") as (url, _):
        assert (await get(url.removesuffix("/mcp") + WELL_KNOWN)).status_code == 404
        challenge = (await initialize(url, None)).headers["www-authenticate"]
        assert "resource_metadata" not in challenge  # never a link that answers 404


async def test_tokens_mode_invites_no_oauth_flow(forum: FakePlatform, tmp_path: Path) -> None:
    async with team_gateway(tmp_path, forum) as team:
        root = team.url.removesuffix("/mcp")
        for path in (WELL_KNOWN, WELL_KNOWN + "/mcp", "/.well-known/oauth-authorization-server"):
            assert (await get(root + path)).status_code == 404, path
        for token, said in ((None, NO_TOKEN), ("gwj_not-a-token", WRONG_TOKEN)):
            refused = await initialize(team.url, token)
            assert refused.status_code == 401
            assert refused.headers["www-authenticate"] == (
                f'Bearer realm="gwanjong", error="invalid_token", error_description="{said}"'
            )
            assert refused.json() == {"error": "invalid_token", "error_description": said}
            assert "resource_metadata" not in refused.text + refused.headers["www-authenticate"]
        assert "gwanjong token add" in NO_TOKEN and "OAuth" in NO_TOKEN
        assert (await initialize(team.url, team.tokens["alice"])).status_code == 200


@pytest.mark.parametrize(
    "audience",
    ["https://h.test/mcp", "https://h.test/", "https://h.test", "https://h.test:8443/team/mcp/"],
)
def test_the_metadata_url_is_the_one_the_sdk_builds(audience: str) -> None:
    # FastMCP names the metadata in the 401 only when a route serves the SDK's URL for it.
    sdk = str(build_resource_metadata_url(AnyHttpUrl(audience)))
    assert urlsplit(sdk).path == metadata_path(audience)


def test_only_a_url_audience_is_a_resource() -> None:
    assert resource_of("https://gwanjong.example.test/mcp") == "https://gwanjong.example.test/mcp"
    for audience in (None, "", "gwanjong-api", "api://gwanjong", "https://", "https://h/#x"):
        assert resource_of(audience) is None, audience
