"""Dev.to settings: DEVTO_API_KEY, DEVTO_BASE_URL and pacing, from env or `.env`."""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from gwanjong_shared.kit.settings import PlatformSettings


class Settings(PlatformSettings):
    model_config = SettingsConfigDict(
        env_prefix="DEVTO_", env_file=".env", extra="ignore", frozen=True
    )

    api_key: SecretStr | None = Field(
        default=None, description="Settings > Extensions > DEV API keys"
    )
    base_url: str = Field(default="https://dev.to", description="any Forem instance")
    reads_per_minute: float = Field(
        default=30, gt=0, description="Forem throttles API reads at 30/min"
    )
    write_interval_s: float = Field(
        default=1.0, ge=0, description="Forem allows one write per second"
    )
