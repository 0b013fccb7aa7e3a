"""Bluesky sessions: createSession (per-handle limit), refreshSession, getSession."""

from __future__ import annotations

import hmac
import time

from starlette.requests import Request
from starlette.responses import Response

from gwanjong_sandbox.bluesky.http import BlueskyHttp
from gwanjong_sandbox.bluesky.model import SESSION_LIMIT


class BlueskySessions(BlueskyHttp):
    """Session routes."""

    # sessions

    async def create_session(self, request: Request) -> Response:
        body = await self._json_body(request)
        if isinstance(body, Response):
            return body
        identifier = str(body.get("identifier") or "")
        password = str(body.get("password") or "")
        if not identifier or not password:
            return self._error(400, "InvalidRequest", 'Input must have the property "identifier"')
        now = time.time()
        key = identifier.lower()
        calls = [t for t in self.session_calls.get(key, []) if t > now - SESSION_LIMIT[1]]
        headers = self._limit_headers(SESSION_LIMIT, calls)
        if len(calls) >= SESSION_LIMIT[0]:
            headers["RateLimit-Remaining"] = "0"
            return self._error(429, headers=headers)
        calls.append(now)
        self.session_calls[key] = calls
        headers = self._limit_headers(SESSION_LIMIT, calls)
        account = self._resolve(identifier)
        if (
            account is None
            or account.password is None
            or not hmac.compare_digest(account.password, password)
        ):
            return self._error(
                401, "AuthenticationRequired", "Invalid identifier or password", headers=headers
            )
        session = self._issue(account.did)
        return self._ok(
            {
                "did": account.did,
                "didDoc": self._did_doc(account, request),
                "handle": account.handle,
                "email": f"{account.handle.split('.')[0]}@sandbox.test",
                "emailConfirmed": True,
                "emailAuthFactor": False,
                "accessJwt": session.access,
                "refreshJwt": session.refresh,
                "active": True,
            },
            headers,
        )

    async def refresh_session(self, request: Request) -> Response:
        header = request.headers.get("authorization", "")
        if not header.startswith("Bearer "):
            return self._error(401, "AuthMissing", "Authentication Required")
        session = self.refresh_tokens.pop(header[len("Bearer ") :], None)
        if session is None:
            return self._error(400, "InvalidToken", "Token could not be verified")
        if session.refresh_exp <= time.time():
            return self._error(400, "ExpiredToken", "Token has expired")
        self.sessions.pop(session.access, None)
        account = self.accounts[session.did]
        fresh = self._issue(session.did)
        return self._ok(
            {
                "accessJwt": fresh.access,
                "refreshJwt": fresh.refresh,
                "handle": account.handle,
                "did": account.did,
                "didDoc": self._did_doc(account, request),
                "active": True,
            }
        )

    async def get_session(self, request: Request) -> Response:
        viewer = self._viewer(request)
        if isinstance(viewer, Response):
            return viewer
        account = self.accounts[viewer]
        return self._ok(
            {
                "handle": account.handle,
                "did": account.did,
                "emailConfirmed": True,
                "didDoc": self._did_doc(account, request),
                "active": True,
            }
        )
