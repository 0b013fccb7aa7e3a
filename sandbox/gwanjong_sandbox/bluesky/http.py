"""Bluesky's HTTP manners: ``RateLimit-*`` headers, XRPC error bodies, bearer sessions, params."""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from gwanjong_sandbox.bluesky.model import (
    ERROR_NAMES,
    GLOBAL_LIMIT,
    JSON,
    REFRESH_TTL_S,
    Account,
    LateRateLimit,
    Session,
    StoredPost,
    b32,
    make_jwt,
)
from gwanjong_sandbox.bluesky.wire import BlueskyWire


class BlueskyHttp(BlueskyWire):
    """Limits, errors and the session check every route passes."""

    # -- plumbing -------------------------------------------------------------------

    def _limit_headers(self, limit: tuple[int, int], calls: list[float]) -> dict[str, str]:
        now = time.time()
        window_start = calls[0] if calls else now
        return {
            "RateLimit-Limit": str(limit[0]),
            "RateLimit-Remaining": str(max(0, limit[0] - len(calls))),
            "RateLimit-Reset": str(int(window_start + limit[1])),
            "RateLimit-Policy": f"{limit[0]};w={limit[1]}",
        }

    def _global_headers(self) -> dict[str, str]:
        now = time.time()
        self.global_calls = [t for t in self.global_calls if t > now - GLOBAL_LIMIT[1]]
        self.global_calls.append(now)
        return self._limit_headers(GLOBAL_LIMIT, self.global_calls)

    def _ok(self, body: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
        return JSON(body, headers=headers or self._global_headers())

    def _error(
        self,
        status: int,
        error: str | None = None,
        message: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        name, default = ERROR_NAMES.get(status, ("InternalServerError", "Internal Server Error"))
        return JSON(
            {"error": error or name, "message": message or default},
            status_code=status,
            headers=headers or self._global_headers(),
        )

    def error_response(self, status: int, retry_after: int | None) -> Response:
        if status == 429:
            headers = self._limit_headers(GLOBAL_LIMIT, self.global_calls)
            return LateRateLimit(retry_after if retry_after is not None else 60, headers)
        return self._error(status)

    def _viewer(self, request: Request) -> str | Response:
        header = request.headers.get("authorization", "")
        if not header.startswith("Bearer "):
            return self._error(401, "AuthMissing", "Authentication Required")
        session = self.sessions.get(header[len("Bearer ") :])
        if session is None:
            return self._error(400, "InvalidToken", "Token could not be verified")
        if session.access_exp <= time.time():
            return self._error(400, "ExpiredToken", "Token has expired")
        return session.did

    def _issue(self, did: str) -> Session:
        now = int(time.time())
        aud = "did:web:sandbox.host.bsky.network"
        access_exp = now + self.access_ttl_s
        access = make_jwt(
            {"typ": "at+jwt", "alg": "HS256"},
            {"scope": "com.atproto.appPass", "sub": did, "iat": now, "exp": access_exp, "aud": aud},
        )
        refresh_exp = now + REFRESH_TTL_S
        refresh = make_jwt(
            {"typ": "refresh+jwt", "alg": "HS256"},
            {
                "scope": "com.atproto.refresh",
                "sub": did,
                "aud": aud,
                "jti": secrets.token_urlsafe(24),
                "iat": now,
                "exp": refresh_exp,
            },
        )
        session = Session(did, access, refresh, access_exp, refresh_exp)
        self.sessions[access] = session
        self.refresh_tokens[refresh] = session
        return session

    def _did_doc(self, account: Account, request: Request) -> dict[str, Any]:
        endpoint = account.pds or f"{request.url.scheme}://{request.url.netloc}"
        return {
            "@context": [
                "https://www.w3.org/ns/did/v1",
                "https://w3id.org/security/multikey/v1",
                "https://w3id.org/security/suites/secp256k1-2019/v1",
            ],
            "id": account.did,
            "alsoKnownAs": [f"at://{account.handle}"],
            "verificationMethod": [
                {
                    "id": f"{account.did}#atproto",
                    "type": "Multikey",
                    "controller": account.did,
                    "publicKeyMultibase": "zQ3sh"
                    + b32(hashlib.sha256(account.did.encode()).digest())[:44],
                }
            ],
            "service": [
                {
                    "id": "#atproto_pds",
                    "type": "AtprotoPersonalDataServer",
                    "serviceEndpoint": endpoint,
                }
            ],
        }

    def _resolve(self, actor: str) -> Account | None:
        actor = actor.lower().lstrip("@")
        if actor.startswith("did:"):
            return self.accounts.get(actor)
        return next((a for a in self.accounts.values() if a.handle == actor), None)

    def _find(self, uri: str) -> StoredPost | None:
        match = re.fullmatch(r"at://([^/]+)/app\.bsky\.feed\.post/([^/?#]+)", uri)
        if not match:
            return None
        account = self._resolve(match[1])
        if account is None:
            return None
        return self.posts.get(f"at://{account.did}/app.bsky.feed.post/{match[2]}")

    @staticmethod
    def _int(request: Request, name: str, default: int, low: int, high: int) -> int | None:
        raw = request.query_params.get(name)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            return None
        return value if low <= value <= high else None

    async def _json_body(self, request: Request) -> dict[str, Any] | Response:
        try:
            body = await request.json()
        except ValueError:
            return self._error(400, "InvalidRequest", "Request body is not valid JSON")
        if not isinstance(body, dict):
            return self._error(400, "InvalidRequest", "Input must be an object")
        return body

    async def _own_repo(self, request: Request) -> tuple[dict[str, Any], Account] | Response:
        """A repo write's body and the signed-in account whose repo it names: the PDS lets
        no one write to another's."""
        viewer = self._viewer(request)
        if isinstance(viewer, Response):
            return viewer
        body = await self._json_body(request)
        if isinstance(body, Response):
            return body
        account = self._resolve(str(body.get("repo") or ""))
        if account is None or account.did != viewer:
            return self._error(400, "InvalidRequest", "Can not write to a repo other than your own")
        return body, account
