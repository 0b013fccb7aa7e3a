"""The console in a real browser: the real gateway over the real platform servers and
the sandbox, the console on a real socket, Debian's Chromium driven by Playwright.

Browsers are never downloaded: Playwright launches `chromium` from PATH (`.ci/run`
installs Debian's package), headless, with a fresh profile and no background traffic.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from fastmcp import Client
from playwright.async_api import BrowserContext, Page, async_playwright

from gwanjong_gateway.config import parse
from gwanjong_gateway.console.app import Console
from gwanjong_gateway.console.serve import serve
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.server import build_gateway
from gwanjong_sandbox.control import SandboxControl
from tests.e2e.strikes import scout_draft
from tests.gateway.helpers import config_text
from tests.mcp import call, until
from tests.platforms import SPECS

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 760}
#: where screenshots go when asked (GWANJONG_SCREENSHOTS=1: the docs' images)
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"


def chromium() -> str:
    found = shutil.which("chromium")
    if found is None:
        raise RuntimeError(
            "the browser tier needs Debian's chromium on PATH (apt-get install chromium); "
            "browsers are never downloaded"
        )
    return found


@dataclass
class Seen:
    """What the page did that it must not: dialogs, script errors."""

    dialogs: list[str] = field(default_factory=list[str])
    errors: list[str] = field(default_factory=list[str])


@dataclass
class Live:
    gw: Gateway
    console: Console
    client: Client[Any]
    browser: BrowserContext  # one fresh profile per test
    link: str
    shots: Path
    tmp: Path

    async def page(self, size: Mapping[str, int] = DESKTOP) -> tuple[Page, Seen]:
        page = await self.browser.new_page()
        await page.set_viewport_size({"width": size["width"], "height": size["height"]})
        seen = Seen()

        async def on_dialog(dialog: Any) -> None:
            seen.dialogs.append(str(dialog.message))
            await dialog.dismiss()

        page.on("dialog", on_dialog)
        page.on("pageerror", lambda exc: seen.errors.append(str(exc)))
        return page, seen

    async def signed_in(
        self, size: Mapping[str, int] = DESKTOP, link: str | None = None
    ) -> tuple[Page, Seen]:
        """A page signed in with ``link`` (default: a fresh one-time link)."""
        page, seen = await self.page(size)
        await page.goto(link or self.console.signin_link())
        assert page.url.endswith("/approvals"), page.url
        return page, seen

    async def shot(self, page: Page, name: str) -> None:
        await page.screenshot(path=str(self.shots / f"console-{name}.png"), full_page=False)

    async def strike(
        self, platform: str, topic: str, title_part: str, content: str, action: str = "comment"
    ) -> dict[str, Any]:
        oid = await scout_draft(self.client, platform, topic, title_part)
        args = {"opportunity_id": oid, "action": action, "content": content}
        return await call(self.client, "strike", **args)


@asynccontextmanager
async def live(
    sandbox: SandboxControl,
    tmp_path: Path,
    platforms: list[str],
    tables: Mapping[str, Mapping[str, Any]] | None = None,
    platform: Mapping[str, Any] | None = None,
    wall: Callable[[], float] = time.time,
) -> AsyncIterator[Live]:
    """The console in Chromium over a confirm-mode gateway. ``tables``: more of gateway.toml
    ([safety] …); ``platform``: each platform's settings over the defaults (no minimum
    interval, no disclosure footer); ``wall``: the gateway's epoch clock (the console's
    sign-in keeps the real one)."""
    state = tmp_path / "state"
    config = parse(
        config_text(
            state,
            platforms,
            "confirm",
            tables={"safety": {"author_cooldown_days": 0}, **(tables or {})},
            platform={"min_interval_s": 0, "disclosure": "", **(platform or {})},
        )
    )
    transports = {name: SPECS[name].build(sandbox.url) for name in platforms}
    gw = Gateway(config, environ={}, transports=transports, wall=wall)
    mcp = build_gateway(config, gateway=gw)
    console = Console(gw, host="127.0.0.1", port=0)
    links: list[str] = []
    shots = DOCS_IMG if os.environ.get("GWANJONG_SCREENSHOTS") == "1" else tmp_path / "shots"
    shots.mkdir(parents=True, exist_ok=True)
    async with Client(mcp) as client, async_playwright() as pw, anyio.create_task_group() as tg:
        tg.start_soon(serve, console, links.append)
        await until(lambda: bool(links), seconds=30, every=0.02)
        browser = await pw.chromium.launch_persistent_context(
            str(tmp_path / "profile"),  # a fresh user-data-dir
            executable_path=chromium(),
            args=ARGS,
            headless=True,
            viewport={"width": DESKTOP["width"], "height": DESKTOP["height"]},
        )
        try:
            yield Live(gw, console, client, browser, links[0], shots, tmp_path)
        finally:
            await browser.close()
            tg.cancel_scope.cancel()
