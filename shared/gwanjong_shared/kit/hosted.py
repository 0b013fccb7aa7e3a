"""Settings from a given mapping instead of `os.environ`, for a platform server that the
gateway builds in its own interpreter (the `gwanjong.platforms` entry point).

The gateway hands each platform only that platform's variables (as it would to a spawned
process); the gateway's own environment and any `.env` in the working directory are not read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import pydantic
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource
from pydantic_settings.sources.utils import parse_env_vars

from gwanjong_shared.kit.settings import PlatformSettings

S = TypeVar("S", bound=PlatformSettings)


class _GivenEnv(EnvSettingsSource):
    """pydantic-settings' own env parsing (prefixes, JSON and NoDecode fields) over `env`."""

    def __init__(self, settings_cls: type[BaseSettings], env: Mapping[str, str]) -> None:
        self._given = dict(env)
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(
            self._given, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str
        )


class SettingsProblem(ValueError):
    """Bad settings, worded with the variable names (never their values)."""


def settings_from_env(kind: type[S], env: Mapping[str, str]) -> S:
    """`kind` loaded from `env` alone."""

    class Given(kind):  # type: ignore[valid-type,misc]
        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: PydanticBaseSettingsSource,
            *_others: Any,
            **_named: Any,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            return (init_settings, _GivenEnv(settings_cls, env))

    Given.__name__ = Given.__qualname__ = kind.__name__
    try:
        return Given(_env_file=None)  # type: ignore[call-arg]
    except pydantic.ValidationError as exc:
        prefix = str(kind.model_config.get("env_prefix", ""))
        problems = "; ".join(
            f"{prefix}{'_'.join(str(p) for p in e['loc']).upper()}: {e['msg']}"
            for e in exc.errors()
        )
        raise SettingsProblem(f"bad settings ({problems})") from None
