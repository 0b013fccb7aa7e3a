"""Bluesky settings: BLUESKY_HANDLE, BLUESKY_APP_PASSWORD, BLUESKY_BASE_URL and pacing."""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from gwanjong_shared.kit.settings import PlatformSettings


class Settings(PlatformSettings):
    model_config = SettingsConfigDict(
        env_prefix="BLUESKY_", env_file=".env", extra="ignore", frozen=True
    )

    handle: str | None = Field(
        default=None, description="the account's handle, e.g. name.bsky.social"
    )
    app_password: SecretStr | None = Field(
        default=None,
        description="Settings > Privacy and security > App passwords (never the main password)",
    )
    base_url: str = Field(
        default="https://bsky.social", description="the account's PDS (or the sandbox)"
    )
    allowed_hosts: str = Field(
        default="*.host.bsky.network",
        description="comma-separated host patterns the SDK may move to besides BASE_URL's host "
        "(bsky.social sessions move to the account's PDS at <name>.<region>.host.bsky.network)",
    )
    requests_per_5min: float = Field(
        default=2500, gt=0, description="Bluesky allows 3000 per 5 minutes per IP"
    )
    writes_per_hour: float = Field(
        default=1500, gt=0, description="creates cost 3 of the 5000 points an account has per hour"
    )
    write_interval_s: float = Field(
        default=1.0, ge=0, description="our own pause between two writes"
    )
    trending_feed: str = Field(
        default="at://did:plc:z72i7hdynmk6r22z27h6tvur/app.bsky.feed.generator/whats-hot",
        description="the feed generator trending reads (Bluesky's Discover / what's hot)",
    )
    langs: str = Field(
        default="", description="comma-separated post languages; empty: guess from the text"
    )
    thread_depth: int = Field(
        default=100, ge=1, le=1000, description="reply levels get_comments reads"
    )
