"""JWTs that prove who (issue 27): required claims, bounded clock skew, pinned algorithms,
`kid` when the key set has several; a `sub` not in its one form signs nobody in (one in the
record from before is printed inert: cli/test_hostile_cli.py); each subject has its own
state and is named in the audit. Over real HTTP with a real MCP client; every refused
token gets 401 and nothing runs."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from pathlib import Path
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import ECKey, RSAKey
from mcp.shared.exceptions import MCPError

from gwanjong_gateway.config import ConfigError, parse
from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import config_text
from tests.gateway.http_gateway import client, initialize_status, serve_app
from tests.gateway.rows import history
from tests.gateway.team.test_auth_jwt_http import Issuer, auth_table, claims, gateway
from tests.mcp import approves, call

pytestmark = pytest.mark.anyio


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unsigned(header: dict[str, Any], body: dict[str, Any]) -> str:
    return f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(body).encode())}."


def hmac_signed(secret: bytes, body: dict[str, Any], kid: str) -> str:
    head = _b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": kid}).encode())
    payload = _b64(json.dumps(body).encode())
    mac = hmac.new(secret, f"{head}.{payload}".encode(), hashlib.sha256).digest()
    return f"{head}.{payload}.{_b64(mac)}"


async def test_only_tokens_of_the_issuer_that_prove_who_get_in(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    idp = Issuer(tmp_path)
    stranger = RSAKey.generate_key(2048, parameters={"kid": "k1"})  # same kid, other key
    now = int(time.time())
    public_pem = idp.key.as_pem(private=False)
    refused = {
        "none": None,
        "garbage": "not.a.jwt",
        "expired": idp.token("alice", iat=now - 7200, exp=now - 3600),
        "wrong audience": idp.token("alice", aud="https://other.example.test/mcp"),
        "wrong issuer": idp.token("alice", iss="https://evil.example.test/"),
        "foreign signature": idp.token("alice", key=stranger),
        "no exp": idp.token("alice", exp=None),
        "no sub": idp.token(None),
        "empty sub": idp.token(""),
        "no iat": idp.token("alice", iat=None),
        "far-future nbf": idp.token("alice", nbf=now + 3600),
        "nbf beyond leeway": idp.token("alice", nbf=now + 120),
        "iat in the future": idp.token("alice", iat=now + 3600),
        "iat beyond leeway": idp.token("alice", iat=now + 120),
        "exp not a number": idp.token("alice", exp="tomorrow"),
        "alg none": unsigned({"alg": "none", "typ": "JWT", "kid": "k1"}, claims()),
        "alg none, no kid": unsigned({"alg": "none"}, claims()),
        "public key as HMAC secret": hmac_signed(public_pem, claims(), "k1"),
        "unknown kid": idp.token("alice", kid="k9"),
    }
    async with serve_app(gateway(sandbox, tmp_path, idp.jwks)) as url:
        for why, token in refused.items():
            assert await initialize_status(url, token) == 401, why
        with pytest.raises(MCPError):  # a real MCP client gets no further
            async with client(url, refused["expired"]) as c:
                await c.call_tool("status", {})
        # within the leeway (30 s by default) a slightly fast issuer clock is fine
        assert await initialize_status(url, idp.token("alice", iat=now + 5)) == 200
        async with client(url, idp.token("alice")) as c:
            assert (await call(c, "status"))["state"]["opportunities"]["count"] == 0
    assert sandbox.writes() == []


async def test_kid_is_required_when_the_key_set_has_several(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    idp = Issuer(tmp_path)
    second = RSAKey.generate_key(2048, parameters={"kid": "k2"})
    keys = [idp.key.as_dict(private=False), second.as_dict(private=False)]
    idp.jwks.write_text(json.dumps({"keys": keys}))
    async with serve_app(gateway(sandbox, tmp_path, idp.jwks)) as url:
        assert await initialize_status(url, idp.token("alice", kid=None)) == 401
        assert await initialize_status(url, idp.token("alice", key=second, kid="k1")) == 401
        assert await initialize_status(url, idp.token("alice", key=second)) == 200
        assert await initialize_status(url, idp.token("alice")) == 200


async def test_only_the_pinned_algorithms_are_accepted(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    ec = ECKey.generate_key("P-256", parameters={"kid": "e1"})
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps({"keys": [ec.as_dict(private=False)]}))
    es_only = auth_table(jwks, algorithms=["ES256"])
    es_token = jwt.encode({"alg": "ES256", "kid": "e1"}, claims(), ec)
    public_pem = ec.as_pem(private=False)
    async with serve_app(gateway(sandbox, tmp_path, jwks, es_only)) as url:
        assert await initialize_status(url, es_token) == 200
        assert await initialize_status(url, hmac_signed(public_pem, claims(), "e1")) == 401
    rs_only = auth_table(jwks)  # the default pins RS256: an ES256 token is refused
    async with serve_app(gateway(sandbox, tmp_path, jwks, rs_only)) as url:
        assert await initialize_status(url, es_token) == 401


@pytest.mark.parametrize(
    ("setting", "why"),
    [
        ({"algorithms": ["none"]}, "not accepted"),
        ({"algorithms": ["HS256"]}, "not accepted"),
        ({"algorithm": "HS256"}, "not accepted"),
        ({"algorithms": []}, "not accepted"),
        ({"required_claims": ["sub"]}, "'exp'"),
        ({"required_claims": ["exp"]}, "'sub'"),
        ({"leeway_s": 3600}, "leeway_s"),
    ],
)
def test_unsafe_jwt_settings_stop_the_start(
    tmp_path: Path, setting: dict[str, Any], why: str
) -> None:
    tables = auth_table(tmp_path / "jwks.json", **setting)
    with pytest.raises(ConfigError, match=why):
        parse(config_text(tmp_path, [], tables=tables))


HOSTILE = "mallory\x1b]0;owned\x07\x1b[2J\u202e\nby=admin"


@pytest.mark.parametrize(
    "sub",
    [
        "\u200b",  # cleans to "": was the local operator
        " \u2060\ufeff ",
        "ali\u00adce",  # a soft hyphen: was alice
        "\uff41\uff4c\uff49\uff43\uff45",  # fullwidth: NFKC makes it alice
        "alice\u200d",
        " alice",
        HOSTILE,
    ],
)
async def test_a_sub_not_in_its_one_form_is_refused(
    sandbox: SandboxControl, tmp_path: Path, sub: str
) -> None:
    """A `sub` is normalised once (NFKC, cleaned): empty after, or other than its cleaned
    form, it signs nobody in (neither the operator nor the person it cleans to)."""
    idp = Issuer(tmp_path)
    async with serve_app(gateway(sandbox, tmp_path, idp.jwks)) as url:
        assert await initialize_status(url, idp.token(sub)) == 401
        assert await initialize_status(url, idp.token("alice")) == 200
        assert await initialize_status(url, idp.token("Zoë Kim")) == 200  # NFC: its one form
    assert sandbox.writes() == []


async def test_a_revoked_sub_is_refused_while_its_token_is_still_good(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    """A member cut off now: their token stays signed and unexpired for up to its `exp`, and
    rotating the key would sign everyone out; `[auth] revoked` refuses that `sub` alone (in
    its one form, however the token spells it) from the next start."""
    idp = Issuer(tmp_path)
    tables = auth_table(idp.jwks, revoked=["Bob"])
    async with serve_app(gateway(sandbox, tmp_path, idp.jwks, tables)) as url:
        assert await initialize_status(url, idp.token("Bob")) == 401
        assert await initialize_status(url, idp.token("alice")) == 200
    with pytest.raises(ConfigError, match='revoked only applies with mode = "jwt"'):
        parse(config_text(tmp_path, [], tables={"auth": {"mode": "tokens", "revoked": ["Bob"]}}))


async def test_one_users_many_agents_leave_anothers_handles(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    idp = Issuer(tmp_path)
    async with serve_app(gateway(sandbox, tmp_path, idp.jwks)) as url:
        async with client(url, idp.token("bob@example.test")) as b:
            found = await call(b, "scout", topic="rust async cancellation", limit=5)
            bobs = found["opportunities"][0]["id"]
        for n in range(3):  # three agents of Alice's, each grouped by its own key header
            key = {"X-Gwanjong-Session": f"alice-session-{n:08d}-xxxxxxxx"}
            async with client(url, idp.token("alice"), headers=key) as a:
                await call(a, "scout", topic="rust async cancellation", limit=5)
                mine = await call(a, "status")
                assert mine["state"]["opportunities"]["count"] == 5, mine  # this agent's
        async with client(url, idp.token("alice")) as a:
            everything = await call(a, "status")
            assert everything["state"]["opportunities"]["count"] == 15, everything
            stolen = await a.call_tool("draft", {"opportunity_id": bobs}, raise_on_error=False)
            assert stolen.is_error and "not one you scouted" in stolen.content[0].text  # type: ignore[union-attr]
        # bob approves his Dev.to article: it waits for a person even in live mode
        async with client(url, idp.token("bob@example.test"), elicitation_handler=approves) as b:
            status = await call(b, "status")
            assert status["state"]["opportunities"]["count"] == 5, status
            drafted = await call(b, "draft", opportunity_id=bobs)
            assert drafted["opportunity_id"] == bobs
            post = {"action": "post", "content": "Hi", "title": "Hello"}
            posted = await call(b, "strike", opportunity_id=bobs, **post)
            assert posted["status"] == "posted", posted
    assert [r.principal for r in history(tmp_path)] == ["bob@example.test"]  # in the audit
