"""Who is calling the HTTP gateway: team bearer tokens or OAuth 2.1 JWTs, from `[auth]`.
FastMCP's bearer middleware answers 401 before any tool runs; the verified principal keys
the pipeline state and is recorded as each strike's `principal`.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import socket
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from fastmcp.server.auth import AccessToken, AuthProvider, TokenVerifier
from fastmcp.server.dependencies import get_access_token
from fastmcp.utilities.auth import decode_jwt_header
from joserfc.errors import JoseError

from gwanjong_gateway.config import AuthSection, ConfigError, GatewayConfig
from gwanjong_gateway.team.access_tokens import TokenError, TokenStore, store_for
from gwanjong_shared.contract.untrusted import one_line

if TYPE_CHECKING:
    from joserfc.jwt import JWTClaimsRegistry

TOKEN_ISSUER = "gwanjong"
log = logging.getLogger(__name__)


def principal_of(name: str) -> str | None:
    """A signed-in name in its one form (NFKC, cleaned, one line), or None when it is not
    one: empty once cleaned, or written otherwise than its cleaned form. Refusing those
    (rather than cleaning them) keeps two spellings from being one person: `ali\u00adce`
    or a fullwidth `ａｌｉｃｅ` are not `alice`, and a lone U+200B is not the operator."""
    cleaned = one_line(unicodedata.normalize("NFKC", name), 200)
    return cleaned if cleaned and cleaned == name else None


class HashedTokenVerifier(TokenVerifier):
    """Accepts the active tokens of a TokenStore; the principal is the token's name."""

    def __init__(self, store: TokenStore) -> None:
        super().__init__()
        self.store = store

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            name = self.store.lookup(token)
        except TokenError as exc:  # a damaged file lets nobody in, and says why
            log.error("refusing every token: %s", exc)
            return None
        if name is None or principal_of(name) is None:  # a hand-edited tokens.json
            return None
        return AccessToken(
            token=token,
            client_id=name,
            scopes=[],
            subject=name,
            claims={"iss": TOKEN_ISSUER, "sub": name},
        )


class PinnedJwtVerifier(TokenVerifier):
    """JWTs that prove who: the header `alg` is one of `[auth] algorithms` (public-key
    only, so a public key can never serve as an HMAC secret), and ``claims`` (joserfc's
    registry) holds `required_claims` present and `exp`, `nbf` and `iat` within
    `leeway_s` of now. The signature, `iss`, `aud` and scopes are FastMCP's JWTVerifier's,
    one per pinned algorithm; it refuses an unknown `kid`, and a token without `kid` when
    the key set has several."""

    def __init__(
        self, auth: AuthSection, by_alg: dict[str, TokenVerifier], claims: JWTClaimsRegistry
    ) -> None:
        super().__init__(required_scopes=auth.required_scopes or None)
        self.by_alg = by_alg
        self.claims = claims
        self.revoked = frozenset(auth.revoked)

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            header = decode_jwt_header(token)
        except Exception:  # not a JWT at all
            return None
        verifier = self.by_alg.get(str(header.get("alg")))
        if verifier is None:
            log.info("bearer token refused: algorithm not pinned")
            return None
        access = await verifier.verify_token(token)
        if access is None:
            return None
        try:
            self.claims.validate(access.claims)
        except JoseError as exc:
            log.info("bearer token refused: %s", exc.description or exc.error)
            return None
        # `sub` is always required (config: AuthSection), so the registry saw a string
        principal = principal_of(access.claims["sub"])
        if principal is None:
            log.info("bearer token refused: sub is empty once cleaned or not in its one form")
            return None
        if principal in self.revoked:
            log.info("bearer token refused: its sub is in [auth] revoked")
            return None
        return access


def _jwt_verifier(auth: AuthSection) -> TokenVerifier:
    """The pinned verifier, serving RFC 9728 metadata when the audience is the gateway's
    URL (team/protected_resource.py)."""
    # Imported here: the JWT stack (joserfc, cryptography) is only needed in jwt mode.
    from fastmcp.server.auth.providers.jwt import JWTVerifier
    from joserfc.jwt import ClaimsOption, JWTClaimsRegistry

    from gwanjong_gateway.team.protected_resource import with_metadata

    verifier, uri = JWTVerifier, auth.jwks_uri
    if uri is None:
        assert auth.jwks_file is not None
        path = Path(auth.jwks_file).expanduser()
        _read_jwks(path)  # fail at start, not on the first request
        uri = path.resolve().as_uri()

        class JwksFileVerifier(JWTVerifier):
            """JWTVerifier reading its key set from a local file instead of a URL."""

            async def _fetch_jwks(self) -> dict[str, Any]:
                return _read_jwks(path)

        verifier = JwksFileVerifier
    scopes = auth.required_scopes or None
    by_alg: dict[str, TokenVerifier] = {
        a: verifier(
            jwks_uri=uri,
            algorithm=a,
            issuer=auth.issuer,
            audience=auth.audience,
            required_scopes=scopes,
        )
        for a in auth.pinned_algorithms
    }
    required = {claim: ClaimsOption(essential=True) for claim in auth.required_claims}
    # joserfc compares the leeway as a number: a float one holds as given
    claims = JWTClaimsRegistry(None, cast("int", auth.leeway_s), **required)
    return with_metadata(PinnedJwtVerifier(auth, by_alg, claims), auth)


def _read_jwks(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"auth.jwks_file: cannot read {path}: {exc.strerror}") from None
    except ValueError:
        raise ConfigError(f"auth.jwks_file: {path} is not JSON") from None
    jwks = cast("dict[str, Any]", data) if isinstance(data, dict) else {}
    if not isinstance(jwks.get("keys"), list) or not jwks["keys"]:
        raise ConfigError(f'auth.jwks_file: {path} has no "keys" list')
    return jwks


def build_auth(config: GatewayConfig) -> AuthProvider | None:
    """The verifier for `[auth]`, or None when mode = "none"."""
    mode = config.auth.mode
    if mode == "tokens":
        return HashedTokenVerifier(store_for(config.state_dir))
    if mode == "jwt":
        return _jwt_verifier(config.auth)
    return None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: it may resolve to anything


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (0: a free port, read back from the socket),
    bound before the server starts so its real address can be announced and a port in use
    is an error to report, not a crash inside the server. Raises OSError."""
    bare = host.strip("[]")
    sock = socket.socket(socket.AF_INET6 if ":" in bare else socket.AF_INET, socket.SOCK_STREAM)
    if os.name != "nt":  # on Windows the option would let it take a port in use
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((bare, port))
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def bind_problem(host: str, auth: AuthProvider | None) -> str | None:
    """Why serving HTTP on `host` with `auth` must not start, or None if it may."""
    if auth is None and not is_loopback(host):
        return (
            f"refusing to serve HTTP on {host} without authentication: anyone who can reach "
            'it could post as your accounts. Set [auth] mode = "tokens" (then run '
            '`gwanjong token add NAME`) or mode = "jwt" in gateway.toml, or serve on 127.0.0.1.'
        )
    if isinstance(auth, HashedTokenVerifier):
        try:
            active = auth.store.active_count()
        except TokenError as exc:
            return str(exc)
        if active == 0:
            return (
                f'[auth] mode = "tokens" but {auth.store.path} holds no active token, so '
                "nobody could connect. Run `gwanjong token add NAME` first."
            )
    return None


def principal_name() -> str | None:
    """The signed-in caller of the current request (token name or JWT subject), if any."""
    token = get_access_token()
    if token is None:
        return None
    name = principal_of(token.subject or token.client_id or "")
    if name is None:  # the verifiers refuse these; never the operator (None) by accident
        raise PermissionError("the signed-in name is not in its one form")
    return name


WRONG_TOKEN = (
    "The bearer token is wrong or revoked. Ask the gateway's operator for a token "
    "(they issue one with `gwanjong token add NAME`) and send it as "
    "`Authorization: Bearer <token>`."
)
NO_TOKEN = (
    "This gateway takes a gwanjong access token, not an OAuth sign-in. Ask its operator "
    "for one (they issue it with `gwanjong token add NAME`) and send it as "
    "`Authorization: Bearer <token>`."
)


def challenge(description: str) -> bytes:
    """The tokens-mode `WWW-Authenticate`: an error and what to do, and no
    `resource_metadata` (there is no authorization server), so an OAuth-capable client
    does not start a sign-in that cannot work."""
    return f'Bearer realm="gwanjong", error="invalid_token", error_description="{description}"'.encode()


class HonestRefusal:
    """ASGI middleware for `[auth] mode = "tokens"`: FastMCP answers a missing token with a
    bare `Bearer` challenge (which OAuth clients take as "sign in") and a refused one with
    OAuth wording ("re-register and obtain new tokens") that a team token cannot follow;
    this says what is wrong and what to do instead. Everything else passes untouched."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        said: str | None = None

        async def honest_send(message: dict[str, Any]) -> None:
            nonlocal said
            if message["type"] == "http.response.start" and message.get("status") == 401:
                headers = dict(message.get("headers") or [])
                asked = headers.get(b"www-authenticate", b"")
                # FastMCP's bearer check, not another route's, nor a challenge of ours
                # (realm="gwanjong": /metrics says what to do itself)
                if asked.startswith(b"Bearer") and b'realm="gwanjong"' not in asked:
                    said = WRONG_TOKEN if b'error="invalid_token"' in asked else NO_TOKEN
                    body = _refusal_body(said)
                    message = {
                        **message,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"www-authenticate", challenge(said)),
                        ],
                    }
            elif message["type"] == "http.response.body" and said is not None:
                if message.get("more_body"):
                    return  # FastMCP's body, swallowed: ours goes in one piece at the end
                message = {"type": "http.response.body", "body": _refusal_body(said)}
            await send(message)

        await self.app(scope, receive, honest_send)


def http_middleware(
    config: GatewayConfig, auth: AuthProvider | None, recheck_s: float | None = None
) -> list[Any]:
    """The HTTP app's extra middleware: HonestRefusal in tokens mode (JWT clients do follow
    the OAuth wording) and, with any sign-in, StreamWatch, which ends an open event stream
    once its token is revoked or expired."""
    from starlette.middleware import Middleware

    from gwanjong_gateway.team.stream_watch import RECHECK_S, StreamWatch

    extra = [Middleware(HonestRefusal)] if config.auth.mode == "tokens" else []
    if isinstance(auth, TokenVerifier):
        interval = RECHECK_S if recheck_s is None else recheck_s
        extra.append(Middleware(StreamWatch, verifier=auth, interval_s=interval))
    return extra


def _refusal_body(description: str) -> bytes:
    return json.dumps({"error": "invalid_token", "error_description": description}).encode()
