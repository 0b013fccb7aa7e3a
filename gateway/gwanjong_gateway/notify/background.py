"""Running the notifier beside a long-running process (the gateway's lifespan,
`gwanjong console`): a watched background task, so a failure is logged and shown, never
fatal, and never in the way of a tool call."""

from __future__ import annotations

import logging
from typing import Any

import anyio

from gwanjong_gateway.config import ConfigError, GatewayConfig
from gwanjong_gateway.notify.notifier import Notifier, resolve_urls
from gwanjong_gateway.notify.sources import GatewayEvents
from gwanjong_gateway.platforms.watched import Watched

log = logging.getLogger(__name__)


def console_url(config: GatewayConfig) -> str:
    """Where the console's pages are, when the config says ("" when only the running
    console knows: a random port)."""
    section = config.console
    if section.public_url:
        return section.public_url
    if section.port:
        host = f"[{section.host}]" if ":" in section.host else section.host
        return f"http://{host}:{section.port}"
    return ""


def start_notifier(gw: Any) -> Watched | None:
    """Start notifying when `[notify] urls` are set, for ``gw`` (a `Gateway`: not imported,
    the gateway holds the notifier); the notifier is `gw.notifier` (what producers such
    as the watcher `publish` to). None when there is nothing to start."""
    config: GatewayConfig = gw.config
    if not config.notify.urls:
        return None
    try:
        urls = resolve_urls(config, gw.environ)
    except ConfigError as exc:  # names the variable, never a value
        log.error("notify: not started: %s", exc)
        return None
    section = config.notify
    budgets = {name: b for name in config.limits if (b := gw.spend.budget(name))}
    known = GatewayEvents(section, gw.upstreams.health, budgets, gw.spend.ledger.spent, gw.wall)
    notifier = Notifier(
        section, gw.records, urls, console_url(config), clock=gw.wall, sources=[known],
        handoff_expire_after_s=config.review.handoff_expire_after_s,
    )  # fmt: skip
    gw.notifier = notifier

    async def run() -> None:
        async with anyio.create_task_group() as tg:
            await notifier.run(tg)

    task = Watched("notifications")
    task.start(run())
    return task
