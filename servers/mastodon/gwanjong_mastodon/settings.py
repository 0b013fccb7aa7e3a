"""Mastodon settings: one instance per configuration (MASTODON_API_BASE_URL,
MASTODON_ACCESS_TOKEN), the footer this instance expects, and pacing."""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from gwanjong_shared.kit.settings import PlatformSettings


class Settings(PlatformSettings):
    model_config = SettingsConfigDict(
        env_prefix="MASTODON_", env_file=".env", extra="ignore", frozen=True
    )

    api_base_url: str = Field(
        default="https://mastodon.social",
        description="the instance the account lives on (https://fosstodon.org, ...)",
    )
    access_token: SecretStr | None = Field(
        default=None,
        description="Preferences > Development > New application (scopes read and write)",
    )
    disclosure: str = Field(
        default="",
        description="a footer appended to every write, where this instance's rules ask for "
        "one (the account's bot flag is the disclosure Mastodon shows by default)",
    )
    requests_per_5min: float = Field(
        default=250, gt=0, description="Mastodon allows 300 requests per 5 minutes per account"
    )
