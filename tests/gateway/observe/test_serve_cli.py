"""`gwanjong` refuses to serve what it cannot: metrics on stdio without a port."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gateway.helpers import config_text
from tests.gateway.http_gateway import cli

pytestmark = pytest.mark.stdio


def test_metrics_on_stdio_without_a_port_refuse_to_start(tmp_path: Path) -> None:
    path = tmp_path / "gateway.toml"
    path.write_text(
        config_text(tmp_path, ["devto"], "live", tables={"metrics": {"enabled": True}}),
        encoding="utf-8",
    )
    done = cli(path)
    assert done.returncode == 2
    assert "[metrics] port" in done.stderr and "--transport http" in done.stderr
    assert "Traceback" not in done.stderr
