"""`[prices.<platform>]` and `[limits.<platform>]` of gateway.toml: what a platform's paid API
costs (the operator's figures over the server's) and what gwanjong may spend on it, in
dollars exact to the micro-dollar. The sections only: `config.py` checks that each names a
platform, `usage/` counts and enforces the money."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from pydantic import Field

from gwanjong_shared.contract.models import Frozen

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
