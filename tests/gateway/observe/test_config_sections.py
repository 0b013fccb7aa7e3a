"""`[telemetry]`, `[metrics]` and `[logging]` in gateway.toml: validated, with the line."""

from __future__ import annotations

import pytest

from gwanjong_gateway.config import ConfigError, parse
from gwanjong_gateway.platforms.upstreams import tracing_env


def test_defaults_turn_everything_off_and_a_collectors_headers_go_only_with_tracing() -> None:
    config = parse("")
    assert config.telemetry.otlp_endpoint == ""
    assert not config.metrics.enabled and config.metrics.port == 0
    assert not config.logging.json_lines
    assert tracing_env(config, "devto") == {}
    environ = {"OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=k3y", "OTEL_SDK_DISABLED": "true"}
    assert tracing_env(config, "devto", environ) == {}
    traced = parse('[telemetry]\notlp_endpoint = "https://otel.example.com"\n')
    env = tracing_env(traced, "devto", environ)  # to the spawned servers
    assert env["OTEL_EXPORTER_OTLP_HEADERS"] == "x-api-key=k3y"
    assert "OTEL_SDK_DISABLED" not in env  # only the collector's headers pass


def test_the_sections_as_written() -> None:
    config = parse(
        '[telemetry]\notlp_endpoint = "https://otel.example.com:4318"\nservice_name = "gw-eu"\n'
        "[metrics]\nenabled = true\nport = 9464\n[logging]\njson = true\n"
    )
    assert config.metrics.port == 9464 and config.logging.json_lines
    assert tracing_env(config, "reddit") == {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel.example.com:4318",
        "OTEL_SERVICE_NAME": "gw-eu-reddit",
        "FASTMCP_TELEMETRY_MODE": "native",
    }


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('[telemetry]\notlp_endpoint = "127.0.0.1:4318"\n', "http:// or https:// URL"),
        ('[telemetry]\notlp_endpoint = "ftp://x"\n', "http:// or https:// URL"),
        ("[metrics]\nport = 70000\n", "metrics.port"),
        ("[metrics]\nenable = true\n", "metrics.enable"),
        ('[telemetry]\nservice_name = ""\n', "telemetry.service_name"),
    ],
)
def test_bad_values_name_the_line(text: str, says: str) -> None:
    with pytest.raises(ConfigError, match=r"gateway.toml:2") as raised:
        parse(text)
    assert says in str(raised.value)
