"""One atproto ``AsyncClient`` and one session for the life of the server.

``createSession`` runs once (it is limited to 30 per 5 minutes per account) and the SDK
refreshes the access token itself before it expires; a session Bluesky calls dead is
replaced once per call. Every SDK call goes through :meth:`BlueskyClient.call`: pacing,
one re-sign-in, and error mapping.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar
from urllib.parse import urlsplit

import anyio
import httpx
from atproto_client import AsyncClient
from atproto_client.client.session import Session, SessionEvent
from atproto_client.exceptions import ModelError, RequestErrorBase
from atproto_client.request import AsyncRequest
from atproto_core.exceptions import AtProtocolError

from gwanjong_bluesky.failures import (
    ACCOUNT_HINT,
    SESSION_GONE,
    cut_write,
    sdk_error,
    transport_error,
    xrpc_error,
)
from gwanjong_bluesky.settings import Settings
from gwanjong_bluesky.transport import limit_key
from gwanjong_shared.contract import errors
from gwanjong_shared.kit.host_gate import GateTransport, HostAllowList
from gwanjong_shared.kit.once import AnswerLost, lost_answer, lost_sign_in, unreadable_answer
from gwanjong_shared.kit.ratelimit import Limiter

log = logging.getLogger(__name__)
T = TypeVar("T")

SESSION_ATTEMPTS = (25, 300.0)  # stay under createSession's 30 per 5 minutes
REJECTED_COOLDOWN_S = 300.0

_AT_URI = re.compile(
    r"^at://(?P<auth>[^/?#\s]+)/app\.bsky\.feed\.post/(?P<rkey>[A-Za-z0-9._:~-]{1,512})$"
)
_WEB_URL = re.compile(
    r"^https?://(?:www\.)?bsky\.app/profile/(?P<auth>[^/?#\s]+)/post/(?P<rkey>[A-Za-z0-9._:~-]{1,512})/?$"
)
_HANDLE = re.compile(
    r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$"
)


class BlueskyClient:
    def __init__(
        self,
        settings: Settings,
        limiter: Limiter,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.settings = settings
        self.limiter = limiter
        self._inner_transport = transport
        self._client: AsyncClient | None = None
        self._did: str | None = None
        self._handle: str | None = None
        self._login_lock = anyio.Lock()
        self._login_attempts: list[float] = []
        self._generation = 0  # bumped by every sign-in
        self._rejected_at: float | None = None
        self._dids: dict[str, str] = {}  # handle -> DID, for ids given with a handle

    def is_configured(self) -> bool:
        return bool(self.settings.handle) and self.settings.app_password is not None

    def _allowed_hosts(self) -> list[str]:
        base_host = urlsplit(self.settings.base_url).hostname or ""
        return [base_host, *self.settings.allowed_hosts.split(",")]

    def _new_client(self) -> AsyncClient:
        transport = GateTransport(
            HostAllowList(self._allowed_hosts()),
            self.limiter,
            lambda _method, path: limit_key(path),
            inner=self._inner_transport,
        )
        request = AsyncRequest(timeout=httpx.Timeout(self.settings.timeout_s), transport=transport)
        client = AsyncClient(base_url=self.settings.base_url, request=request)
        client.on_session_change(self._on_session)
        return client

    async def _on_session(self, _event: SessionEvent, session: Session) -> None:
        self._did, self._handle = session.did, session.handle

    async def connect(self) -> None:
        if self._client is None:
            self._client = self._new_client()

    async def close(self) -> None:
        if self._client is not None:
            await self._client.request.close()
            self._client = None

    async def session(self, *, stale: int | None = None) -> AsyncClient:
        """The client, signed in once. ``stale``: the sign-in generation a call found dead;
        sign in again unless another call already did."""
        if self._client is None:
            await self.connect()
        assert self._client is not None
        if not self.is_configured():
            return self._client  # unauthenticated: works against a public AppView
        async with self._login_lock:
            if self._did is not None and stale != self._generation:
                return self._client
            now = time.monotonic()
            if self._rejected_at is not None and now - self._rejected_at < REJECTED_COOLDOWN_S:
                raise errors.auth(
                    f"Bluesky refused the handle or app password a moment ago. {ACCOUNT_HINT}"
                )
            window = [t for t in self._login_attempts if t > now - SESSION_ATTEMPTS[1]]
            if len(window) >= SESSION_ATTEMPTS[0]:
                wait = window[0] + SESSION_ATTEMPTS[1] - now
                raise errors.rate_limited(
                    f"This server signed in to Bluesky {len(window)} times in 5 minutes; Bluesky "
                    f"allows 30. Wait {max(1, round(wait))} seconds.",
                    wait,
                )
            self.limiter.check("session")
            self._login_attempts = [*window, now]
            self._did = None
            await self.limiter.pace()
            await self._login(self._client)
            if self._did is None:  # the session callback did not run: treat as a failure
                raise errors.unavailable("Bluesky created no session. Try again in a minute.")
            self._generation += 1
            return self._client

    async def _login(self, client: AsyncClient) -> None:
        assert self.settings.handle is not None and self.settings.app_password is not None
        try:
            await client.login(
                self.settings.handle,
                self.settings.app_password.get_secret_value(),
                fetch_bsky_profile=False,
            )
        except AtProtocolError as exc:
            status, name, _ = (
                xrpc_error(exc) if isinstance(exc, RequestErrorBase) else (None, "", "")
            )
            if name == "AuthFactorTokenRequired":
                raise errors.auth(
                    "Bluesky asks this account for an email sign-in code, which means the "
                    f"main password was given. Use an app password instead. {ACCOUNT_HINT}"
                ) from None
            if status == 401 or name == "AuthenticationRequired":
                self._rejected_at = time.monotonic()
                raise errors.auth(
                    f"Bluesky refused the handle or app password ({name or status}). {ACCOUNT_HINT}"
                ) from None
            raise sdk_error(exc, "signing in", None, self.settings.timeout_s) from None
        except httpx.HTTPError as exc:
            raise transport_error(exc, "signing in", self.settings.timeout_s) from None
        except AnswerLost as lost:
            raise lost_sign_in("Bluesky", lost) from None

    async def me(self) -> tuple[str, str]:
        """Our DID and handle (signs in if needed)."""
        await self.session()
        if self._did is None or self._handle is None:
            raise errors.auth(f"No Bluesky account is signed in. {ACCOUNT_HINT}")
        return self._did, self._handle

    async def call(
        self,
        what: str,
        fn: Callable[[AsyncClient], Awaitable[T]],
        *,
        item: str | None = None,
        write: bool = False,
    ) -> T:
        """One SDK call with pacing and error mapping; re-signs in once if the session died."""
        if write and not self.is_configured():
            raise errors.auth(
                f"No Bluesky account is set, so nothing can be posted. {ACCOUNT_HINT}"
            )
        if write:
            self.limiter.check("write")
        # a write's interval counts from its answer (Limiter.paced)
        async with self.limiter.paced(write=True) if write else contextlib.nullcontext():
            timeout_s = self.settings.timeout_s
            stale: int | None = None
            for attempt in (0, 1):
                self.limiter.check("write" if write else "read")
                client = await self.session(stale=stale)
                generation = self._generation
                await self.limiter.pace()
                try:
                    return await fn(client)
                except RequestErrorBase as exc:
                    _, name, _ = xrpc_error(exc)
                    if attempt == 0 and name in SESSION_GONE and self.is_configured():
                        log.info("bluesky: session no longer valid (%s); signing in again", name)
                        stale = generation
                        continue
                    cut = cut_write(exc, what) if write else None
                    raise (cut or sdk_error(exc, what, item, timeout_s)) from None
                except AtProtocolError as exc:
                    if write and isinstance(exc, ModelError):  # answered, but not readable
                        raise unreadable_answer("Bluesky", what) from None
                    raise sdk_error(exc, what, item, timeout_s) from None
                except httpx.HTTPError as exc:
                    cut = cut_write(exc, what) if write else None
                    raise (cut or transport_error(exc, what, timeout_s)) from None
                except AnswerLost as lost:  # a POST's answer was lost: never sent again
                    if limit_key(lost.path) == "session":  # a token refresh writes nothing
                        raise lost_sign_in("Bluesky", lost) from None
                    raise lost_answer("Bluesky", lost, what) from None
            raise errors.auth(f"Bluesky rejected a fresh session too. {ACCOUNT_HINT}")

    async def uri(self, post_id: str, what: str = "post_id") -> str:
        """An at:// URI with a DID from an at:// URI or a bsky.app link (handles resolved)."""
        text = post_id.strip()
        match = _AT_URI.match(text) or _WEB_URL.match(text)
        if match is None:
            raise errors.invalid_input(
                f"{what} must be a Bluesky post URI (at://did:plc:.../app.bsky.feed.post/...) or a "
                f"bsky.app post link; got {text[:80]!r}. Use an id from search or trending."
            )
        authority, rkey = match["auth"].lower(), match["rkey"]
        if not authority.startswith("did:"):
            if not _HANDLE.match(authority):
                raise errors.invalid_input(
                    f"{authority!r} in {what} is neither a DID nor a handle."
                )
            if authority not in self._dids:
                response = await self.call(
                    "resolving a handle",
                    lambda c: c.resolve_handle(authority),
                    item=f"account {authority}",
                )
                self._dids[authority] = response.did
            authority = self._dids[authority]
        return f"at://{authority}/app.bsky.feed.post/{rkey}"

    def now(self) -> str:
        """The record timestamp the SDK writes (createdAt)."""
        assert self._client is not None
        return self._client.get_current_time_iso()
