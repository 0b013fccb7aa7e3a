from __future__ import annotations

import pytest
from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from gwanjong_shared.kit.hosted import SettingsProblem, settings_from_env
from gwanjong_shared.kit.settings import PlatformSettings


class Demo(PlatformSettings):
    model_config = SettingsConfigDict(env_prefix="DEMO_", extra="ignore", frozen=True)
    token: SecretStr | None = None
    base_url: str = "https://example.com"
    rate: float = Field(default=1.0, gt=0)
    tags: list[str] = Field(default_factory=list)


def test_reads_the_given_mapping_and_not_the_process_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DEMO_BASE_URL", "https://from-the-gateway-env.invalid")
    monkeypatch.setenv("DEMO_TOKEN", "process-secret")
    s = settings_from_env(Demo, {"DEMO_RATE": "2.5", "DEMO_TAGS": '["a", "b"]', "OTHER_X": "1"})
    assert isinstance(s, Demo)
    assert s.base_url == "https://example.com" and s.token is None
    assert s.rate == 2.5 and s.tags == ["a", "b"]


def test_blank_means_unset_and_bad_values_name_the_variable() -> None:
    assert settings_from_env(Demo, {"DEMO_TOKEN": ""}).token is None
    with pytest.raises(SettingsProblem, match="DEMO_RATE") as caught:
        settings_from_env(Demo, {"DEMO_RATE": "-1", "DEMO_TOKEN": "s3cret-value"})
    assert "s3cret-value" not in str(caught.value)
