"""The operator's sections of gateway.toml, for watching a running gateway and paying for
it: what it reports about itself (`[telemetry]`, `[metrics]`, `[logging]`: where its
traces, metrics and log lines go) and what platforms' paid APIs cost and it may spend
(`[prices.<platform>]`, `[limits.<platform>]`, in dollars exact to the micro-dollar). The
sections only: `config.py` checks that prices and limits name a platform; `observe/`, the
CLI and `usage/` act on them."""

from __future__ import annotations

import re
from decimal import Decimal
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


#: dollars as written in gateway.toml: exact to the micro-dollar (the unit spend is counted in)
Usd = Annotated[Decimal, Field(ge=0, le=1_000_000, decimal_places=6)]


def micro_usd(value: Decimal) -> int:
    """Dollars (at most 6 decimals, validated) as integer micro-dollars."""
    return int(value * 1_000_000)


class PriceSection(Frozen):
    """`[prices.<platform>]`: the operator's own figures, in dollars, over those the
    platform's server gives in its profile (each one left out keeps the server's)."""

    #: per post or comment a read returns
    read: Usd | None = None
    #: per write request
    write: Usd | None = None
    #: per write whose text holds a link
    write_with_url: Usd | None = None


class LimitSection(Frozen):
    """`[limits.<platform>]`: what gwanjong may spend on a platform's paid API."""

    #: dollars per day (the day of the daily caps: midnight to midnight UTC); None: no budget
    daily_usd: Usd | None = None
