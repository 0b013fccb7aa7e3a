"""OAuth 2.1 resource-server mode: JWTs checked against a local JWKS file (no network),
over real HTTP with a real MCP client."""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey

from gwanjong_gateway.config import ConfigError, parse
from gwanjong_gateway.server import build_gateway
from gwanjong_gateway.team.auth import build_auth
from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import config_text, patient_gateway
from tests.gateway.http_gateway import client, initialize_status, serve_app
from tests.mcp import call
from tests.platforms import SPECS

pytestmark = pytest.mark.anyio
ISSUER = "https://id.example.test/"
AUDIENCE = "https://gwanjong.example.test/mcp"


def claims(sub: str | None = "alice", **over: Any) -> dict[str, Any]:
    """A token's claims for ``sub``, ``over`` the usual ones; a None claim is left out."""
    now = int(time.time())
    body = {"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "iat": now, "exp": now + 600, **over}
    return {k: v for k, v in body.items() if v is not None}


class Issuer:
    """A local identity provider: one signing key, published in a JWKS file."""

    def __init__(self, tmp: Path, kid: str = "k1") -> None:
        self.key = RSAKey.generate_key(2048, parameters={"kid": kid})
        self.jwks = tmp / "jwks.json"
        self.jwks.write_text(json.dumps({"keys": [self.key.as_dict(private=False)]}))

    def token(
        self, sub: str | None, key: RSAKey | None = None, kid: str | None = "", **over: Any
    ) -> str:
        """Signed by ``key`` (this issuer's); ``kid`` in the header: the key's own, or none."""
        signer = key or self.key
        header = {"alg": "RS256", **({} if kid is None else {"kid": kid or signer.kid})}
        return jwt.encode(header, claims(sub, **over), signer)


def auth_table(jwks: Path, **more: Any) -> dict[str, dict[str, Any]]:
    """The [auth] table of a JWT resource server trusting ``jwks``, plus ``more``."""
    return {
        "auth": {"mode": "jwt", "issuer": ISSUER, "audience": AUDIENCE, "jwks_file": jwks, **more}
    }


def gateway(
    sandbox: SandboxControl, tmp: Path, jwks: Path, tables: dict[str, dict[str, Any]] | None = None
) -> Any:
    config = parse(config_text(tmp, ["devto"], tables=tables or auth_table(jwks)))
    transports = {"devto": SPECS["devto"].build(sandbox.url)}
    gw = patient_gateway(config, {}, transports)
    return build_gateway(config, gateway=gw, auth=build_auth(config))


def test_a_bad_jwks_file_stops_the_start(tmp_path: Path) -> None:
    missing = tmp_path / "absent.json"
    with pytest.raises(ConfigError, match="cannot read"):
        build_auth(parse(config_text(tmp_path, [], tables=auth_table(missing))))
    empty = tmp_path / "empty.json"
    empty.write_text('{"keys": []}')
    with pytest.raises(ConfigError, match='no "keys"'):
        build_auth(parse(config_text(tmp_path, [], tables=auth_table(empty))))


@contextlib.contextmanager
def serve_file(path: Path, asked: list[str] | None = None) -> Iterator[str]:
    """A loopback HTTP server publishing one file, like an identity provider's JWKS URL;
    each GET's path is added to ``asked``."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if asked is not None:
                asked.append(self.path)
            body = path.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/jwks.json"
    finally:
        server.shutdown()
        server.server_close()


async def test_keys_can_come_from_a_jwks_url(sandbox: SandboxControl, tmp_path: Path) -> None:
    idp = Issuer(tmp_path, kid="rotating-1")
    with serve_file(idp.jwks) as jwks_uri:
        table = {"auth": {"mode": "jwt", "issuer": ISSUER, "audience": AUDIENCE}}
        table["auth"]["jwks_uri"] = jwks_uri
        async with serve_app(gateway(sandbox, tmp_path, idp.jwks, table)) as url:
            async with client(url, idp.token("carol")) as c:
                assert (await call(c, "status"))["state"]["opportunities"]["count"] == 0
            stranger = RSAKey.generate_key(2048, parameters={"kid": "rotating-1"})
            assert await initialize_status(url, idp.token("carol", key=stranger)) == 401
