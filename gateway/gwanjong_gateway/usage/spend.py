"""The daily spend budget (docs/operate/spend.md): `admit` reserves a call's most, atomically
against the budget, before anything is sent; `settle` puts the true cost in its place.

A read refused by the budget is `rate_limited` because the model already knows to act on
it (wait `retry_after`); the message says it is our budget, not the platform's throttle.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import anyio

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.platforms.client import ensure_profiles
from gwanjong_gateway.platforms.outcome import Outcome
from gwanjong_gateway.platforms.upstreams import Reservation, Upstreams
from gwanjong_gateway.rules import policy
from gwanjong_gateway.usage.prices import billed, cost, daily_budgets, most, prices_for, usd
from gwanjong_gateway.usage.spend_ledger import Over, SpendLedger
from gwanjong_shared.contract import Prices
from gwanjong_shared.contract.errors import ErrorKind

log = logging.getLogger(__name__)
T = TypeVar("T")


class Spend:
    """The spend gate of one gateway's Upstreams (`attach`)."""

    def __init__(
        self,
        config: GatewayConfig,
        upstreams: Upstreams,
        ledger: SpendLedger,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.upstreams = upstreams
        self.ledger = ledger
        self.clock = clock
        #: the signed-in caller of the current request ('' without sign-in), set by the server
        self.who: Callable[[], str | None] = lambda: None
        self._warned = False
        self._asked: set[str] = set()  # platforms asked for their prices (capabilities)

    def budget(self, platform: str) -> int | None:
        """`[limits.<platform>] daily_usd` in micro-dollars (None: no budget)."""
        return daily_budgets(self.config).get(platform)

    async def _prices(self, platform: str, budget: int | None) -> Prices | Outcome | None:
        prices = prices_for(self.config, self.upstreams.profiles, platform)
        if prices is not None or self.upstreams.profiles.answered(platform):
            return prices
        # The platform has not said what it charges yet: ask it first (its capabilities,
        # free), once per process for the figures, until it answers when a budget is set.
        if budget is not None or platform not in self._asked:
            self._asked.add(platform)
            await ensure_profiles(self.upstreams, [platform])
        if budget is not None and not self.upstreams.profiles.answered(platform):
            return Outcome.failure(
                ErrorKind.UNAVAILABLE,
                f"Could not ask {platform} what it charges (capabilities), so its daily budget "
                f"([limits.{platform}] daily_usd) cannot be kept: nothing was sent. Check "
                f"status(), or give its prices in gateway.toml ([prices.{platform}]).",
            )
        return prices_for(self.config, self.upstreams.profiles, platform)

    async def admit(
        self, platform: str, tool: str, arguments: dict[str, Any]
    ) -> Outcome | Reservation | None:
        if not billed(tool):
            return None
        budget = self.budget(platform)
        prices = await self._prices(platform, budget)
        if prices is None or isinstance(prices, Outcome):
            return prices
        micros = most(prices, tool, arguments)
        now = self.clock()
        try:
            got = await self._run(
                self.ledger.reserve,
                platform,
                tool,
                self.who() or "",
                micros,
                budget,
                policy.day_start(now),
            )
        except Exception as exc:
            if budget is None:  # figures only: the call goes on unrecorded
                self._warn(exc)
                return None
            log.warning("spend: the ledger failed (%s): %s refused", type(exc).__name__, tool)
            return Outcome.failure(
                ErrorKind.UNAVAILABLE,
                f"The spend ledger (the usage log's database) did not answer, so the daily "
                f"budget of {platform} cannot be kept: nothing was sent. Check status(), then "
                "try again.",
            )
        if isinstance(got, Over):
            reset = datetime.fromtimestamp(policy.day_start(now), UTC) + timedelta(days=1)
            wait = reset.timestamp() - now
            return Outcome.failure(
                ErrorKind.RATE_LIMITED,
                refusal(platform, tool, got, micros, reset, wait),
                retry_after=wait,
            )
        return Reservation(platform, tool, got, micros)

    async def settle(self, reservation: Reservation, outcome: Outcome | None) -> None:
        micros = 0
        if outcome is not None:
            prices = prices_for(self.config, self.upstreams.profiles, reservation.platform)
            micros = (
                reservation.micros
                if prices is None
                else cost(prices, reservation.tool, reservation.micros, outcome)
            )
        # The call is over: its figure is written even while the request is cancelled.
        with anyio.CancelScope(shield=True):
            try:
                await self._run(self.ledger.settle, reservation.row, micros)
            except Exception as exc:  # the reservation stands: the budget errs safe
                self._warn(exc)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        with anyio.fail_after(self.config.store.call_deadline_s):
            return await anyio.to_thread.run_sync(fn, *args, abandon_on_cancel=True)

    def _warn(self, exc: BaseException) -> None:
        if not self._warned:
            self._warned = True
            log.warning(
                "spend: the ledger failed (%s); spend figures are missing", type(exc).__name__
            )

    def close(self) -> None:
        self.ledger.close()


def refusal(
    platform: str, tool: str, over: Over, micros: int, reset: datetime, wait_s: float
) -> str:
    """The true figures, and when the budget is whole again."""
    hours, rest = divmod(max(1, round(wait_s)), 3600)
    return (
        f"Daily spend budget reached on {platform}: {usd(over.spent)} spent today (calls "
        f"in flight included), this {tool} may cost {usd(micros)}, the budget is "
        f"{usd(over.budget)} ([limits.{platform}] daily_usd in gateway.toml). Nothing was "
        f"sent. It resets at {reset:%H:%M} UTC ({reset:%Y-%m-%d}), in {hours} h {rest // 60} min."
    )


def attach(
    config: GatewayConfig,
    upstreams: Upstreams,
    environ: dict[str, str] | None,
    clock: Callable[[], float] = time.time,
) -> Spend:
    """The spend gate of these upstreams, on the configured ledger (``clock``: the wall
    clock the ledger's rows and the budget's day are read from)."""
    from gwanjong_gateway.usage.log import where_of

    spend = Spend(config, upstreams, SpendLedger(where_of(config, environ), clock), clock)
    upstreams.gate = spend
    return spend
