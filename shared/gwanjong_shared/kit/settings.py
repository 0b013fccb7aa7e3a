"""Per-platform settings come from the environment and `.env`; build them in main()."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from gwanjong_shared.kit.logs import register_secret


class PlatformSettings(BaseSettings):
    """Base for each server's settings. Subclasses set ``env_prefix`` and their fields."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True)

    timeout_s: float = Field(default=20.0, gt=0, description="per-request timeout, seconds")
    log_level: str = Field(default="WARNING", description="stderr log level")
    hold_file: Path | None = Field(
        default=None,
        description="where writes whose answer was lost are held across restarts (kit/hold.py); "
        "default <user data dir>/gwanjong/holds/<platform>.db",
    )

    @model_validator(mode="before")
    @classmethod
    def _blank_means_unset(cls, data: Any) -> Any:
        # `DEVTO_API_KEY=` (or an unset `${VAR}` expanded by the gateway) means "not set",
        # not "a key that is the empty string": such a server is unconfigured, not broken.
        if not isinstance(data, dict):
            return data
        optional = {name for name, f in cls.model_fields.items() if f.default is None}
        return {
            k: v
            for k, v in cast("dict[str, object]", data).items()
            if not (k.lower() in optional and isinstance(v, str) and not v.strip())
        }

    def hold_path(self) -> Path:
        """``hold_file``, else this server's file in the user's data dir (platformdirs: the
        gateway's default state dir, without its older ``~/.gwanjong``)."""
        if self.hold_file:
            return self.hold_file.expanduser()
        from platformdirs import user_data_dir  # only a server that writes needs it

        name = str(self.model_config.get("env_prefix", "")).strip("_").lower()
        return Path(user_data_dir("gwanjong", appauthor=False), "holds", f"{name}.db")

    def model_post_init(self, __context: object) -> None:
        # Every secret a server holds is masked in its logs from the moment it is loaded.
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                register_secret(value.get_secret_value())
