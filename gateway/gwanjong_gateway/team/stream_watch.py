"""Open event streams end when their bearer token stops being valid.

Each request is verified on arrival, but a GET event stream may stay open for hours: this
ASGI middleware re-verifies its token every `interval_s` and ends the stream once it fails.
POSTs are left alone: a call let in finishes (cut mid-way, a write could go unrecorded).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import anyio
from fastmcp.server.auth import TokenVerifier

log = logging.getLogger(__name__)

#: how often an open stream's token is verified again (a file stat for team tokens)
RECHECK_S = 2.0


def bearer_of(scope: Mapping[str, Any]) -> str | None:
    headers: list[tuple[bytes, bytes]] = scope.get("headers") or []  # ASGI: raw byte pairs
    for name, value in headers:
        if name.lower() == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None


class StreamWatch:
    """ASGI middleware ending GET streams whose bearer token no longer verifies."""

    def __init__(self, app: Any, verifier: TokenVerifier, interval_s: float = RECHECK_S) -> None:
        self.app = app
        self.verifier = verifier
        self.interval_s = interval_s

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        token = bearer_of(scope) if scope.get("type") == "http" else None
        if token is None or scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return
        started = ended = revoked = False

        async def tracked(message: dict[str, Any]) -> None:
            nonlocal started, ended
            if message["type"] == "http.response.start":
                started = True
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                ended = True
            await send(message)

        async with anyio.create_task_group() as group:

            async def watch() -> None:
                nonlocal revoked
                while True:
                    await anyio.sleep(self.interval_s)
                    if await self._refused(token):
                        revoked = True
                        log.info("an event stream was closed: its token is revoked or expired")
                        group.cancel_scope.cancel()
                        return

            group.start_soon(watch)
            await self.app(scope, receive, tracked)
            group.cancel_scope.cancel()
        if revoked and started and not ended:
            # The stream ends cleanly: the client sees it close (and its reconnect gets 401).
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _refused(self, token: str) -> bool:
        try:
            return await self.verifier.verify_token(token) is None
        except Exception:  # the verifier failing (a JWKS fetch) is not a revocation
            log.warning("re-verifying an event stream's token failed; it stays open")
            return False
