"""Helpers for the exactly-once tests: gateways over stdio or HTTP sharing one state_dir,
one strike call, and what the strike record holds."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
from fastmcp import Client

from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import Strike
from gwanjong_sandbox.control import SandboxControl
from tests.e2e.test_chain import write_config
from tests.gateway.helpers import opportunity_for
from tests.gateway.http_gateway import http_gateway as running_gateway

PY = sys.executable


def config(
    tmp: Path,
    sandbox: SandboxControl,
    platforms: list[str],
    safety: str = "",
    platform_extra: dict[str, Any] | None = None,
    timeout: float = 10,
    server_timeout: int = 2,
    isolation: str = "in-process",
) -> Path:
    """A live gateway.toml; ``safety`` is the body of a [safety] table."""
    path = write_config(tmp, sandbox, platforms, timeout=timeout, isolation=isolation)
    text = path.read_text()
    for name in platforms:
        prefix = name.upper()
        text = text.replace(f'{prefix}_TIMEOUT_S = "2"', f'{prefix}_TIMEOUT_S = "{server_timeout}"')
    if platform_extra:
        for name in platforms:
            table = f"[platforms.{name}]\n"
            extra = "".join(f"{k} = {v}\n" for k, v in platform_extra.items())
            text = text.replace(table, table + extra)
        if "min_interval_s" in platform_extra:
            text = text.replace("min_interval_s = 0\n", "")
    if safety:
        text += "\n[safety]\n" + safety + "\n"
    path.write_text(text)
    return path


def history(tmp: Path) -> list[Strike]:
    store = StrikeStore(tmp / "state" / "gwanjong.db")
    try:
        return store.history(limit=1000)
    finally:
        store.close()


async def scout_draft(client: Client[Any], platform: str, topic: str, title: str) -> str:
    scouted = (
        await client.call_tool("scout", {"topic": topic, "platforms": [platform], "limit": 10})
    ).structured_content
    assert scouted is not None
    oid = opportunity_for(scouted, platform, title)
    await client.call_tool("draft", {"opportunity_id": oid})
    return oid


async def strike(
    client: Client[Any], oid: str, action: str, content: str, title: str = ""
) -> dict[str, Any]:
    """The structured result, or {"error": text} (which must carry a kind)."""
    args = {"opportunity_id": oid, "action": action, "content": content}
    if title:
        args["title"] = title
    result = await client.call_tool("strike", args, raise_on_error=False)
    if result.is_error:
        text = result.content[0].text  # type: ignore[union-attr]
        assert text.split(":")[0].split()[0] in (
            "auth",
            "not_found",
            "rate_limited",
            "invalid_input",
            "not_supported",
            "unavailable",
            "timeout",
        ), text
        assert "Nothing was written" not in text or "refused" in text, text
        return {"error": text}
    assert result.structured_content is not None
    return result.structured_content


async def until(predicate: Any, seconds: float = 60, every: float = 0.3) -> None:
    with anyio.fail_after(seconds):
        while not await predicate():
            await anyio.sleep(every)


@contextlib.contextmanager
def http_gateway(config_path: Path) -> Iterator[str]:
    """A gateway process serving streamable HTTP on a port of its own choosing; yields its
    MCP URL."""
    with running_gateway(config_path, log_level="WARNING") as running:
        yield running.url


@contextlib.asynccontextmanager
async def clients(*transports: Any) -> AsyncIterator[list[Client[Any]]]:
    async with contextlib.AsyncExitStack() as stack:
        out = [await stack.enter_async_context(Client(t, timeout=90)) for t in transports]
        yield out
