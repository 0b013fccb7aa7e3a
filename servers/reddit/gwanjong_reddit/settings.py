"""Reddit settings: script-app credentials, endpoints, subreddits and pacing (env or `.env`).

Every variable starts with ``REDDIT_``. Without ``REDDIT_USERNAME``/``REDDIT_PASSWORD`` the
server runs read-only (application-only OAuth): it reads, and refuses to write.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from gwanjong_shared.kit.settings import PlatformSettings

DEFAULT_SUBREDDITS = ("programming", "Python", "rust", "webdev", "ExperiencedDevs")


def _names(value: object) -> object:
    """``"r/Python, rust+webdev"`` -> ``["Python", "rust", "webdev"]``."""
    if isinstance(value, str):
        parts = value.replace("+", ",").replace(" ", ",").split(",")
        return [p.strip().removeprefix("/").removeprefix("r/") for p in parts if p.strip()]
    return value


class Settings(PlatformSettings):
    model_config = SettingsConfigDict(
        env_prefix="REDDIT_", env_file=".env", extra="ignore", frozen=True
    )

    client_id: str | None = Field(
        default=None, description="the id under the app's name at reddit.com/prefs/apps"
    )
    client_secret: SecretStr | None = Field(default=None, description="the script app's secret")
    username: str | None = Field(
        default=None, description="the account that writes (a developer of the app)"
    )
    password: SecretStr | None = Field(default=None, description="that account's password")
    user_agent: str | None = Field(
        default=None,
        description="override; default '<platform>:gwanjong-reddit:<version> (by /u/<developer>)'",
    )
    developer: str | None = Field(
        default=None, description="Reddit username named in the User-Agent (default: USERNAME)"
    )

    base_url: str | None = Field(
        default=None,
        description="one root serving both the OAuth API and the token endpoint (the sandbox: "
        "http://127.0.0.1:PORT/reddit); overrides OAUTH_URL and WWW_URL",
    )
    oauth_url: str = Field(default="https://oauth.reddit.com", description="the OAuth API")
    www_url: str = Field(default="https://www.reddit.com", description="where tokens come from")

    subreddits: Annotated[list[str], NoDecode] = Field(
        default=list(DEFAULT_SUBREDDITS),
        description="trending = hot of these (comma-separated; 'popular' for r/popular)",
    )
    search_scope: Literal["all", "subreddits"] = Field(
        default="all", description="search all of Reddit, or only SUBREDDITS"
    )
    search_time: Literal["hour", "day", "week", "month", "year", "all"] = Field(
        default="all", description="how far back search looks"
    )
    post_subreddit: str | None = Field(default=None, description="where write_post publishes")

    requests_per_minute: float = Field(
        default=100, gt=0, description="client-side cap; Reddit allows 100 per minute with OAuth"
    )
    write_interval_s: float = Field(
        default=2.0, ge=0, description="at least this long between writes"
    )
    max_wait_s: float = Field(
        default=10.0,
        ge=0,
        description="longest we sleep for Reddit's rate-limit window; beyond it a call answers "
        "rate_limited at once",
    )
    ratelimit_seconds: int = Field(
        default=5, ge=0, description="RATELIMIT waits up to this long are slept and retried"
    )
    retries: int = Field(
        default=2, ge=0, le=5, description="retries of a read after a 5xx (a write is never resent)"
    )
    retry_backoff_s: float = Field(
        default=2.0, ge=0, description="backoff unit between 5xx retries"
    )
    more_requests: int = Field(
        default=10, ge=0, le=50, description="most /api/morechildren calls one get_comments makes"
    )

    _split = field_validator("subreddits", mode="before")(_names)

    @field_validator("post_subreddit", mode="before")
    @classmethod
    def _one_name(cls, value: object) -> object:
        if isinstance(value, str):
            return value.strip().removeprefix("/").removeprefix("r/") or None
        return value

    @property
    def api_url(self) -> str:
        """oauth_url with the trailing slash asyncprawcore's urljoin needs."""
        root = self.base_url or self.oauth_url
        return root.rstrip("/") + "/"

    @property
    def token_url(self) -> str:
        """www_url without a trailing slash (the token path is appended to it as a string)."""
        return (self.base_url or self.www_url).rstrip("/")

    @property
    def has_user(self) -> bool:
        password = self.password.get_secret_value() if self.password is not None else ""
        return bool(self.username and password)
