"""The one gateway.toml writer: what it writes loads back, and it never writes a bad file."""

from __future__ import annotations

from pathlib import Path

import pytest

from gwanjong_gateway.config import ConfigError, load
from gwanjong_gateway.config_file import render, write_config


def test_a_rendered_config_is_written_and_loads_back(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "gateway.toml"
    text = render(
        {"writes": "live", "state_dir": tmp_path / "state"},
        {"devto": {"env": {"DEVTO_BASE_URL": "http://127.0.0.1:9"}, "min_interval_s": 0}},
    )
    written = write_config(path, text)
    loaded, where = load(str(path), check_env=False)
    assert where == path and loaded == written
    assert loaded.gateway.writes == "live"
    assert loaded.platforms["devto"].env == {"DEVTO_BASE_URL": "http://127.0.0.1:9"}


def test_a_file_the_gateway_would_refuse_is_never_written(tmp_path: Path) -> None:
    path = tmp_path / "gateway.toml"
    with pytest.raises(ConfigError, match=r"mine\.toml:2: gateway\.writes"):
        write_config(path, render({"writes": "sometimes"}, {}), "mine.toml")
    assert not path.exists()
