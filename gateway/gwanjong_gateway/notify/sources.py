"""Events that a running gateway knows in memory rather than in the record: a platform
down for longer than `[notify] down_after_s`, and a priced platform's spend for today
past `[notify] spend_share` of its `[limits] daily_usd`. Each is keyed by platform and
day, so it is told at most once a day, by one replica."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

import anyio.to_thread

from gwanjong_gateway.config.away import NotifySection
from gwanjong_gateway.notify.events import Event, EventKind
from gwanjong_gateway.rules.policy import day_start

log = logging.getLogger(__name__)


class GatewayEvents:
    def __init__(
        self,
        section: NotifySection,
        health: Callable[[], Mapping[str, Mapping[str, Any]]],
        budgets: Mapping[str, int],
        spent: Callable[[str, float], int],
        clock: Callable[[], float],
    ) -> None:
        """``health``: `Upstreams.health()`; ``budgets``: micro-dollars a day per platform;
        ``spent``: the ledger's spend of a platform since a time (runs in a thread)."""
        self.section = section
        self.health = health
        self.budgets = budgets
        self.spent = spent
        self.clock = clock
        self._down_since: dict[str, float] = {}

    async def __call__(self) -> list[Event]:
        now = self.clock()
        day = int(day_start(now))
        found: list[Event] = []
        for name, row in self.health().items():
            platform: Mapping[str, Any] = row.get("platform") or {}
            if row.get("health") != "down" and platform.get("state") != "unreachable":
                self._down_since.pop(name, None)
                continue
            since = self._down_since.setdefault(name, now)
            if now - since >= self.section.down_after_s:
                found.append(
                    Event(
                        kind=EventKind.PLATFORM_DOWN, key=f"{name}:{day}", platform=name, at=since
                    )
                )
        for name, budget in self.budgets.items():
            try:
                spent = await anyio.to_thread.run_sync(self.spent, name, float(day))
            except Exception as exc:  # the ledger is down: the spend gate says so itself
                log.debug("notify: spend of %s unknown (%s)", name, type(exc).__name__)
                continue
            if budget > 0 and spent >= budget * self.section.spend_share:
                found.append(
                    Event(kind=EventKind.SPEND_NEAR_CAP, key=f"{name}:{day}", platform=name, at=now)
                )
        return found
