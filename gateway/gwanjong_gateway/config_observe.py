"""`[telemetry]`, `[metrics]` and `[logging]` of gateway.toml: where the gateway's traces,
metrics and log lines go. The sections only: `observe/` and the CLI act on them."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import Field, field_validator

from gwanjong_shared.contract.models import Frozen


class TelemetrySection(Frozen):
    """Tracing: spans exported over OTLP/HTTP (the `observe` extra); nothing when unset."""

    #: the collector's base URL (spans go to <otlp_endpoint>/v1/traces); "" = no tracing
    otlp_endpoint: str = ""
    #: the gateway's `service.name` (each platform server is `<service_name>-<platform>`)
    service_name: str = Field(default="gwanjong", min_length=1, max_length=100)

    @field_validator("otlp_endpoint")
    @classmethod
    def _http_url(cls, url: str) -> str:
        if url and not re.match(r"^https?://[^/\s]+(/\S*)?$", url):
            raise ValueError(
                'otlp_endpoint must be an http:// or https:// URL (e.g. "http://127.0.0.1:4318"), '
                'or "" for no tracing'
            )
        return url


class MetricsSection(Frozen):
    """Prometheus metrics (the `observe` extra)."""

    enabled: bool = False
    #: 0: at /metrics on the gateway's own HTTP server, behind [auth] (`--transport http`);
    #: else on its own listener at 127.0.0.1:<port> (any transport)
    port: Annotated[int, Field(ge=0, le=65535)] = 0


class LoggingSection(Frozen):
    """The gateway's log lines on stderr."""

    #: one JSON object per line (time, level, logger, message), for log shippers
    json_lines: bool = Field(default=False, alias="json")
