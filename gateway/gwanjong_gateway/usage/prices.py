"""What a platform call costs (docs/operate/spend.md): before a read, only its most is known
(that is what a budget reserves); a write costs its price whatever the outcome.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.config.ops import micro_usd
from gwanjong_gateway.rules.profiles import Profiles
from gwanjong_shared.contract import BILLED_READS, MICRO_USD, WRITE_TOOLS, Prices

if TYPE_CHECKING:  # `gwanjong usage` reads prices; neither needs FastMCP (errors imports it)
    from gwanjong_gateway.platforms.outcome import Outcome

#: a read without a `limit` argument: the most one page of any platform returns
DEFAULT_READ_ITEMS = 100
#: a link as a platform would find one, erring wide (a scheme, `www.`, or a dotted name
#: ending in letters): a write wrongly priced "with URL" only makes the budget stricter.
#: Only the characters next to the dot or `://` are looked at: a pattern spanning the whole
#: name retried every start of a long dotted run ("a.a.a…", 0.6 s per 4,000 characters).
_LINK = re.compile(r"(?i)[a-z0-9+.-]://|\bwww\.|[a-z0-9-]\.[a-z]{2,}\b")


def prices_for(config: GatewayConfig, profiles: Profiles, platform: str) -> Prices | None:
    """The platform server's prices, with each figure of `[prices.<platform>]` in place of
    its own; None when neither gives any (the platform charges nothing per call)."""
    profile = profiles.get(platform)
    own = profile.prices if profile is not None else None
    override = config.prices.get(platform)
    if override is None:
        return own
    given = {k: micro_usd(v) for k, v in override.model_dump().items() if v is not None}
    if own is None:
        return Prices.model_validate({**given, "source": "gateway.toml"})
    return own.model_copy(update={**given, "source": f"{own.source} (overridden in gateway.toml)"})


def daily_budgets(config: GatewayConfig) -> dict[str, int]:
    """Each `[limits.<platform>] daily_usd` that is set, in micro-dollars."""
    limits = config.limits.items()
    return {
        name: micro_usd(limit.daily_usd) for name, limit in limits if limit.daily_usd is not None
    }


def billed(tool: str) -> bool:
    return tool in BILLED_READS or tool in WRITE_TOOLS


def most(prices: Prices, tool: str, arguments: Mapping[str, Any]) -> int:
    """The most this call may cost, in micro-dollars: what a budget reserves for it."""
    if tool in WRITE_TOOLS:
        text = " ".join(str(arguments.get(k) or "") for k in ("title", "body"))
        if prices.write_with_url is not None and _LINK.search(text):
            return prices.write_with_url
        return prices.write
    if tool in BILLED_READS:
        return prices.read * _most_items(tool, arguments)
    return 0


def _most_items(tool: str, arguments: Mapping[str, Any]) -> int:
    if tool == "get_post":
        return 1
    limit = arguments.get("limit")
    if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
        return limit
    return DEFAULT_READ_ITEMS


def cost(prices: Prices, tool: str, reserved: int, outcome: Outcome) -> int:
    """What the call came to: a write its price; a read its items returned (a failure
    after which the platform may have answered keeps the reservation)."""
    if tool in WRITE_TOOLS:
        return reserved
    if not outcome.ok:
        from gwanjong_shared.contract.errors import UNSURE  # loaded already: an outcome exists

        return reserved if outcome.kind in UNSURE else 0
    return prices.read * _items(tool, outcome)


def _items(tool: str, outcome: Outcome) -> int:
    """Posts and comments in a read's answer (the contract's PostList, CommentList,
    MentionList, or one Post)."""
    data = outcome.result.structured_content if outcome.result is not None else None
    if not isinstance(data, Mapping):
        return 0
    if tool == "get_post":
        return 1
    for key in ("posts", "comments"):
        items = data.get(key)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(items, list):
            return len(items)  # pyright: ignore[reportUnknownArgumentType]
    return 0


def usd(micros: int) -> str:
    """Micro-dollars for people, exact: $5.00, $4.995, $0.015 (no float on the way)."""
    whole, _, frac = f"{Decimal(micros) / MICRO_USD:.6f}".partition(".")
    return f"${whole}.{frac.rstrip('0').ljust(2, '0')}"
