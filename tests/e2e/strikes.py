"""Helpers for the exactly-once tests: gateways over stdio or HTTP sharing one state_dir,
one strike call, and what the strike record holds."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any
from uuid import uuid4

from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import Strike
from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import config_file, drafted
from tests.gateway.http_gateway import http_gateway as running_gateway
from tests.platforms import SPECS

PY = sys.executable


#: [gateway] settings of the live e2e configs: every platform waited for, slow start-ups
E2E: dict[str, Any] = {"call_timeout_s": 10, "start_timeout_s": 60}


def live_config(
    tmp: Path,
    sandbox: SandboxControl,
    platforms: list[str],
    *args: Any,
    settings: Mapping[str, Any] | None = None,
    **kw: Any,
) -> Path:
    """`config_file` of a live run: the E2E settings (with ``settings``), every platform's
    server pointed at the sandbox."""
    both = E2E | dict(settings or {})
    return config_file(tmp, platforms, *args, settings=both, sandbox=sandbox.url, **kw)


def server_timeout(sandbox: SandboxControl, name: str, seconds: int) -> dict[str, Any]:
    """`others` for config_file: the platform's server waits ``seconds`` on the sandbox."""
    return {name: {"env": SPECS[name].env(sandbox.url) | SPECS[name].timeouts(seconds)}}


def history(tmp: Path) -> list[Strike]:
    with closing(StrikeStore(tmp / "state" / "gwanjong.db")) as store:
        return store.history(limit=1000)


async def scout_draft(client: Client[Any], platform: str, topic: str, title: str) -> str:
    """`drafted` on ``platform`` alone."""
    return await drafted(client, topic, title, platform, platforms=[platform], limit=10)


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


@contextlib.contextmanager
def http_gateway(config_path: Path) -> Iterator[str]:
    """A gateway process serving streamable HTTP on a port of its own choosing; yields its
    MCP URL."""
    with running_gateway(config_path, log_level="WARNING") as running:
        yield running.url


def session(url: str, name: str | None = None) -> StreamableHttpTransport:
    """A workflow session of its own, or the one ``name`` keys: the record keeps it, so any
    gateway on that record can continue it."""
    return StreamableHttpTransport(url, headers={"X-Gwanjong-Session": name or str(uuid4())})


@contextlib.asynccontextmanager
async def clients(*transports: Any) -> AsyncIterator[list[Client[Any]]]:
    async with contextlib.AsyncExitStack() as stack:
        out = [await stack.enter_async_context(Client(t, timeout=90)) for t in transports]
        yield out
