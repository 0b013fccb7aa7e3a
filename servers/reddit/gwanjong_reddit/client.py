"""The one asyncpraw client of the server, and how every piece of SDK work is run.

asyncpraw is the real client; around it this adds a Requestor that bounds every HTTP
request by ``REDDIT_TIMEOUT_S`` (asyncprawcore passes its own 16 s constant to every
request), paces requests and refuses any host but the configured ones (``gate``), our 5xx
retry schedule, and one error mapping (``failures``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from importlib.metadata import PackageNotFoundError, version
from typing import TypeVar

import asyncpraw
from asyncprawcore.sessions import Session

from gwanjong_reddit.failures import NO_APP, READ_ONLY, sdk_error
from gwanjong_reddit.gate import Gate, GatedRequestor, retry_strategy
from gwanjong_reddit.settings import Settings
from gwanjong_shared.contract import errors
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.kit.ratelimit import ANY

log = logging.getLogger(__name__)
T = TypeVar("T")

try:
    __version__ = version("gwanjong-reddit")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.1.0"


class RedditClient:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.gate = Gate(settings)
        self._reddit: asyncpraw.Reddit | None = None

    def user_agent(self) -> str:
        """Reddit's required form: ``<platform>:<app id>:<version> (by /u/<username>)``."""
        if self.settings.user_agent:
            return self.settings.user_agent
        agent = f"python:gwanjong-reddit:{__version__}"
        developer = self.settings.developer or self.settings.username
        return f"{agent} (by /u/{developer})" if developer else agent

    def reddit(self) -> asyncpraw.Reddit:
        if self._reddit is not None:
            return self._reddit
        s = self.settings
        if not s.client_id:
            raise errors.auth(NO_APP)
        if not (s.developer or s.username or s.user_agent):
            log.warning("reddit: set REDDIT_DEVELOPER so the User-Agent names who runs this app")
        reddit = asyncpraw.Reddit(
            client_id=s.client_id,
            client_secret=s.client_secret.get_secret_value() if s.client_secret else None,
            username=s.username if s.has_user else None,
            password=s.password.get_secret_value() if s.has_user and s.password else None,
            user_agent=self.user_agent(),
            oauth_url=s.api_url,
            reddit_url=s.token_url,
            check_for_updates=False,  # it would query PyPI on the first request
            ratelimit_seconds=s.ratelimit_seconds,
            requestor_class=GatedRequestor,
            requestor_kwargs={"gate": self.gate},
        )
        # asyncprawcore has no option for its 5xx retry schedule; set it on each session.
        strategy = retry_strategy(s.retries, s.retry_backoff_s)
        for core in (reddit._core, reddit._read_only_core, reddit._authorized_core):
            if isinstance(core, Session):
                core._retry_strategy_class = strategy
        self._reddit = reddit
        return reddit

    async def close(self) -> None:
        if self._reddit is not None:
            await self._reddit.close()
            self._reddit = None

    def is_configured(self) -> bool:
        s = self.settings
        return bool(s.client_id and s.client_secret and s.has_user)

    def require_account(self) -> None:
        if not self.settings.client_id:
            raise errors.auth(NO_APP)
        if not self.settings.has_user:
            raise errors.auth(READ_ONLY)

    async def run(
        self,
        what: str,
        call: Callable[[asyncpraw.Reddit], Awaitable[T]],
        *,
        missing: str = "such item",
    ) -> T:
        """Run SDK work, honouring Reddit's budget first and mapping every failure."""
        reddit = self.reddit()
        # A short wait (up to MAX_WAIT_S) is slept through; a longer one refused at once.
        await self.gate.limiter.wait_or_refuse(ANY, tolerate_s=self.settings.max_wait_s)
        try:
            return await call(reddit)
        except PlatformError:
            raise
        except Exception as exc:
            log.debug("reddit: %s failed with %s", what, type(exc).__name__)
            raise sdk_error(exc, what, missing, self.gate) from None
