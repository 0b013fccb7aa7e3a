"""X settings: TWITTER_* from the environment or `.env` (built in main(), never at import)."""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from gwanjong_shared.kit.settings import PlatformSettings


class Settings(PlatformSettings):
    model_config = SettingsConfigDict(
        env_prefix="TWITTER_", env_file=".env", extra="ignore", frozen=True
    )

    # Official API v2 (tweepy): an app-only bearer token reads, OAuth 1.0a user context writes.
    bearer_token: SecretStr | None = Field(
        default=None, description="app-only Bearer Token (reads)"
    )
    api_key: SecretStr | None = Field(default=None, description="OAuth 1.0a consumer key")
    api_secret: SecretStr | None = Field(default=None, description="OAuth 1.0a consumer secret")
    access_token: SecretStr | None = Field(
        default=None, description="OAuth 1.0a access token of our account"
    )
    access_secret: SecretStr | None = Field(
        default=None, description="OAuth 1.0a access token secret"
    )

    # Where requests go. Only for the loopback sandbox: the real hosts are X's.
    api_base_url: str | None = Field(
        default=None,
        description="send official-API requests here instead of https://api.twitter.com",
    )
    web_base_url: str | None = Field(
        default=None,
        description="send twikit's web requests here instead of x.com (defaults to api_base_url when "
        "that is set, so a sandbox run never reaches X)",
    )

    # Opt-in web reader (twikit): a cookies file, or a login that writes one.
    cookies_file: str | None = Field(
        default=None, description="twikit cookies JSON (auth_token, ct0)"
    )
    username: str | None = Field(default=None, description="X login for twikit (reading only)")
    email: str | None = Field(default=None, description="e-mail of that login, if X asks for it")
    password: SecretStr | None = Field(default=None, description="password of that login")
    totp_secret: SecretStr | None = Field(
        default=None, description="2FA TOTP secret, so login never prompts"
    )

    # Policy and pacing.
    likes_allowed: bool = Field(
        default=False,
        description="true only for an account whose X tier still includes likes (removed from "
        "self-serve tiers on 2026-04-16)",
    )
    ai_replies_approved: bool = Field(
        default=False,
        description="true only once X approved this app for AI-generated replies (the Policy "
        "Support form); until then a person sends every reply",
    )
    trends_woeid: int = Field(default=1, description="where trends are read (1 = worldwide)")
    trend_topics: int = Field(
        default=3, ge=1, le=10, description="how many top trends trending searches"
    )
    trends_ttl_s: float = Field(
        default=300,
        ge=0,
        description="reuse the trend list this long (trends move slowly; each read costs)",
    )
    write_interval_s: float = Field(
        default=1.0, ge=0, description="at least this long between two writes"
    )

    def web_reader_configured(self) -> bool:
        return bool(self.cookies_file or (self.username and self.password is not None))
