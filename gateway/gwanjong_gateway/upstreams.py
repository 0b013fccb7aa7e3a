"""The platform servers, held open as MCP clients.

Each enabled platform is one Upstream, started on its first use (health "not started"
until then): a bundled platform is built in the gateway's interpreter and reached over
FastMCP's in-memory transport (hosting.py); `isolation = "process"` spawns it over stdio
instead; a `command` is spawned and a `url` reached over HTTP. A backend that fails to
start, crashes or hangs is marked down with the reason, never blocks the others, and is
started again on its next use. Every call has a timeout.
"""

from __future__ import annotations

import logging
import os
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from fastmcp import Client
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport
from mcp.shared.exceptions import MCPError

from gwanjong_gateway import hosting
from gwanjong_gateway.config import GatewayConfig, PlatformConfig, command_for, expand, read_dotenv
from gwanjong_shared.contract import CONTRACT_TOOLS
from gwanjong_shared.errors import ErrorKind, format_error, parse_error

log = logging.getLogger(__name__)

Health = Literal["not started", "starting", "up", "down", "disabled"]
SEP = "__"  # namespaced tool names: devto__search

# What a spawned server needs besides its own credentials.
_QUIET = {
    "FASTMCP_LOG_LEVEL": "WARNING",
    "FASTMCP_SHOW_SERVER_BANNER": "false",
    "FASTMCP_CHECK_FOR_UPDATES": "off",
    "GWANJONG_SPAWNED": "1",  # settings come from this env alone, not a .env in the cwd
    "FASTMCP_TELEMETRY_MODE": "off",  # no spans in a spawned server (tracing is the gateway's)
}


@dataclass
class Outcome:
    """One upstream call: data on success, else the error's kind and text."""

    ok: bool
    data: Any = None
    kind: ErrorKind | None = None
    message: str = ""
    retry_after: float | None = None

    @classmethod
    def failure(cls, kind: ErrorKind, message: str, retry_after: float | None = None) -> Outcome:
        return cls(ok=False, kind=kind, message=message, retry_after=retry_after)

    @property
    def error(self) -> str:
        if self.ok or self.kind is None:
            return ""
        return format_error(self.kind, self.message, self.retry_after)


def platform_env(
    name: str, platform: PlatformConfig, secrets: dict[str, str], environ: dict[str, str]
) -> dict[str, str]:
    """Only this platform's variables: its prefix from the environment and the saved
    `.env`, then the `env` table of gateway.toml (with `${VAR}` expanded)."""
    prefix = f"{name.upper()}_"
    merged = {**secrets, **environ}
    env = {k: v for k, v in merged.items() if k.startswith(prefix)}
    env.update({k: expand(v, merged) for k, v in platform.env.items()})
    env.update(_QUIET)
    return env


@dataclass
class Upstream:
    name: str
    platform: PlatformConfig
    env: dict[str, str]
    connect_timeout_s: float = 30.0
    #: for tests: a transport (or in-process FastMCP server) used instead of spawning
    transport_override: Any = None
    health: Health = "not started"
    reason: str = "started on first use"
    tools: dict[str, Any] = field(default_factory=dict)
    started_at: float | None = None
    _client: Client[Any] | None = None
    _stack: AsyncExitStack | None = None
    _lock: anyio.Lock = field(default_factory=anyio.Lock)

    @property
    def in_process(self) -> bool:
        p = self.platform
        return p.command is None and p.url is None and p.isolation == "in-process"

    async def _transport(self) -> Any:
        if self.transport_override is not None:
            return self.transport_override
        if self.in_process:
            return await hosting.in_process(self.name, self.env)
        if self.platform.url:
            return StreamableHttpTransport(self.platform.url)
        command = command_for(self.name, self.platform)
        return StdioTransport(command=command[0], args=command[1:], env=self.env, keep_alive=True)

    async def ensure(self) -> Client[Any] | None:
        """A live client, starting the server if needed; None (and health=down) if not."""
        async with self._lock:
            if self._client is not None and self.health == "up":
                return self._client
            await self._close_locked()
            self.health = "starting"
            try:
                with anyio.fail_after(self.connect_timeout_s):
                    stack = AsyncExitStack()
                    client: Client[Any] = Client(
                        await self._transport(), timeout=self.connect_timeout_s
                    )
                    await stack.enter_async_context(client)
                    self._stack = stack
                    listed = await client.list_tools()
            except TimeoutError:
                await self._close_locked()
                return self._down(f"did not start within {self.connect_timeout_s:g} s")
            except Exception as exc:  # any failure to start is a reason, not a crash
                await self._close_locked()
                return self._down(_why(exc))
            self.tools = {t.name: t for t in listed}
            missing = [t for t in CONTRACT_TOOLS if t not in self.tools]
            if missing:
                await self._close_locked()
                return self._down(
                    "does not speak the platform tool contract (missing: "
                    + ", ".join(missing)
                    + ")"
                )
            self._client = client
            self.health, self.reason = "up", "ok"
            self.started_at = time.time()
            log.info("%s: up", self.name)
            return client

    def _down(self, reason: str) -> None:
        self.health, self.reason = "down", reason
        log.warning("%s: down: %s", self.name, reason)
        return None

    async def call(self, tool: str, arguments: dict[str, Any], timeout_s: float) -> Outcome:
        client = await self.ensure()
        if client is None:
            return Outcome.failure(
                ErrorKind.UNAVAILABLE,
                f"the {self.name} server is down ({self.reason}); it is restarted on the next call",
            )
        try:
            # The raw result: its structured content is validated once, by the typed models
            # where it is used (call_tool would also build classes from the outputSchema).
            result = await client.call_tool_mcp(tool, arguments, timeout=timeout_s)
        except MCPError as exc:
            text = str(exc)
            if "timed out" in text:
                return Outcome.failure(
                    ErrorKind.TIMEOUT, f"{self.name} did not answer {tool} within {timeout_s:g} s"
                )
            # The process died or the connection broke: restart on the next use.
            async with self._lock:
                await self._close_locked()
                self._down(f"connection lost during {tool} ({text[:80]})")
            return Outcome.failure(
                ErrorKind.UNAVAILABLE,
                f"the {self.name} server stopped during {tool}; it is restarted on the next call",
            )
        except Exception as exc:
            return Outcome.failure(ErrorKind.UNAVAILABLE, f"{self.name} {tool} failed: {_why(exc)}")
        if result.is_error:
            text = " ".join(getattr(c, "text", "") for c in result.content)
            kind, message, after = parse_error(text)
            return Outcome.failure(kind, message, after)
        return Outcome(ok=True, data=result.structured_content)

    async def _close_locked(self) -> None:
        stack, self._stack, self._client = self._stack, None, None
        if stack is not None:
            with anyio.move_on_after(5, shield=True):
                try:
                    await stack.aclose()
                except Exception as exc:  # a dead child may fail to close cleanly
                    log.debug("%s: close: %s", self.name, type(exc).__name__)

    async def close(self) -> None:
        async with self._lock:
            await self._close_locked()
            if self.health != "disabled":
                self.health, self.reason = "down", "closed"


def _why(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text[:160]}" if text else type(exc).__name__


class Upstreams:
    """Every enabled platform's Upstream, started concurrently."""

    def __init__(
        self,
        config: GatewayConfig,
        environ: dict[str, str] | None = None,
        transports: dict[str, Any] | None = None,
    ) -> None:
        env = dict(os.environ if environ is None else environ)
        secrets = read_dotenv(config.state_dir / ".env")
        self.config = config
        self.by_name: dict[str, Upstream] = {
            name: Upstream(
                name,
                platform,
                platform_env(name, platform, secrets, env),
                connect_timeout_s=config.gateway.start_timeout_s,
            )
            for name, platform in config.enabled().items()
        }
        for name, transport in (transports or {}).items():
            if name in self.by_name:
                self.by_name[name].transport_override = transport

    def names(self) -> list[str]:
        return list(self.by_name)

    def get(self, name: str) -> Upstream | None:
        return self.by_name.get(name)

    async def start_all(self, only: set[str] | None = None) -> None:
        """Start these platforms now (all when `only` is None) rather than on first use."""
        async with anyio.create_task_group() as tg:
            for name, upstream in self.by_name.items():
                if only is None or name in only:
                    tg.start_soon(upstream.ensure)

    async def close_all(self) -> None:
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as tg:
                for upstream in self.by_name.values():
                    tg.start_soon(upstream.close)

    async def call(
        self, platform: str, tool: str, arguments: dict[str, Any], timeout_s: float | None = None
    ) -> Outcome:
        upstream = self.by_name.get(platform)
        if upstream is None:
            return Outcome.failure(
                ErrorKind.INVALID_INPUT,
                f"platform {platform!r} is not enabled; enabled: {', '.join(self.by_name) or 'none'}",
            )
        return await upstream.call(tool, arguments, timeout_s or self.config.gateway.call_timeout_s)

    def health(self) -> dict[str, dict[str, Any]]:
        return {name: {"health": u.health, "reason": u.reason} for name, u in self.by_name.items()}

    def reload_env(self, name: str, environ: dict[str, str] | None = None) -> None:
        """After `setup save`: rebuild this platform's env from the saved `.env`."""
        upstream = self.by_name[name]
        env = dict(os.environ if environ is None else environ)
        upstream.env = platform_env(
            name, upstream.platform, read_dotenv(self.config.state_dir / ".env"), env
        )
