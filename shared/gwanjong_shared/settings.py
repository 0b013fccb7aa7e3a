"""Per-platform settings come from the environment and `.env`; build them in main()."""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from gwanjong_shared.logs import register_secret


class PlatformSettings(BaseSettings):
    """Base for each server's settings. Subclasses set ``env_prefix`` and their fields."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True)

    timeout_s: float = Field(default=20.0, gt=0, description="per-request timeout, seconds")
    log_level: str = Field(default="WARNING", description="stderr log level")

    def model_post_init(self, __context: object) -> None:
        # Every secret a server holds is masked in its logs from the moment it is loaded.
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                register_secret(value.get_secret_value())
