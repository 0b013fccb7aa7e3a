"""The platform servers, held open as MCP clients.

Each enabled platform is one Upstream, started on first use: bundled in-process over
FastMCP's memory transport (hosting.py), spawned over stdio (`isolation = "process"` or a
`command`), or reached over HTTP (`url`). A backend that fails is marked down with its real
reason and restarted in the background with backoff while its breaker answers at once;
every call, waiting for a start included, is bounded by its timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import anyio
from fastmcp import Client
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, REQUEST_TIMEOUT

from gwanjong_gateway.config import PlatformConfig, command_for
from gwanjong_gateway.platforms import childlog, hosting
from gwanjong_gateway.platforms.breaker import Breaker, Clock
from gwanjong_gateway.platforms.health import PlatformHealth, PlatformState
from gwanjong_gateway.platforms.outcome import Outcome
from gwanjong_shared.contract import CONTRACT_TOOLS, OPTIONAL_TOOLS, READ_TOOLS
from gwanjong_shared.contract.errors import ErrorKind
from gwanjong_shared.kit.quiet import QUIET_ENV

log = logging.getLogger(__name__)

# Tools that change nothing on the platform: safe to send again after a lost connection.
_RETRY_SAFE = frozenset((*READ_TOOLS, *OPTIONAL_TOOLS))

# What a spawned server needs besides its own credentials.
QUIET = {
    **QUIET_ENV,
    "GWANJONG_SPAWNED": "1",  # settings come from this env alone, not a .env in the cwd
    # no spans in a spawned server unless [telemetry] is set (upstreams.tracing_env)
    "FASTMCP_TELEMETRY_MODE": "off",
}
# Variables whose values are not secret (kept readable in stderr reasons).
_PLAIN = ("_URL", "_LOG_LEVEL", "_TIMEOUT_S", "OTEL_SERVICE_NAME", "FASTMCP_TELEMETRY_MODE")


class Health(StrEnum):
    """The server process (the first layer of health)."""

    NOT_STARTED = "not started"
    STARTING = "starting"
    UP = "up"
    DOWN = "down"


@dataclass
class Upstream:
    name: str
    platform: PlatformConfig
    env: dict[str, str]
    connect_timeout_s: float = 30.0
    #: for tests: a transport (or in-process FastMCP server) used instead of spawning
    transport_override: Any = None
    health: Health = Health.NOT_STARTED
    reason: str = "started on first use"
    tools: dict[str, Any] = field(default_factory=dict[str, Any])
    #: where a spawned server's stderr goes (None: the gateway's own stderr)
    log_file: Path | None = None
    clock: Clock = field(default=time.monotonic)
    #: the background restart's wait for the backoff (tests: one that moves `clock`)
    sleep: Callable[[float], Awaitable[None]] = field(default=anyio.sleep)
    breaker: Breaker = field(init=False)
    platform_health: PlatformHealth = field(default_factory=PlatformHealth)
    #: told each time the server comes up (the exposed tools take its schema then)
    on_up: Callable[[str], None] | None = None
    _client: Client[Any] | None = None
    _stack: AsyncExitStack | None = None
    _lock: anyio.Lock = field(default_factory=anyio.Lock)
    _generation: int = 0
    _spawned: StdioTransport | None = None
    #: a call gave up waiting for the current start: later calls answer at once
    _start_waited_out: bool = False
    _start_began: float | None = None
    _reaping: set[asyncio.Task[None]] = field(default_factory=set[asyncio.Task[None]])
    _starting: asyncio.Task[Client[Any] | None] | None = None
    _retry: asyncio.Task[None] | None = None
    _closed: bool = False
    #: the connection was lost (a crash), and the server is not back yet: a call whose
    #: time outlasts the backoff waits for the restart instead of failing at once
    _lost_connection: bool = False
    #: set (and replaced) each time a start attempt ends, up or down
    _attempted: anyio.Event = field(default_factory=anyio.Event)

    def __post_init__(self) -> None:
        self.breaker = Breaker(clock=self.clock)

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
        log_file = childlog.reset(self.log_file) if self.log_file is not None else None
        self._spawned = StdioTransport(
            command=command[0], args=command[1:], env=self.env, keep_alive=True, log_file=log_file
        )
        return self._spawned

    async def ensure(self) -> Client[Any] | None:
        """A live client, starting the server if needed; None (and health=down) if it
        cannot start or its breaker is open. The start runs in its own task, so a caller
        that stops waiting does not abort it."""
        if self._client is not None and self.health is Health.UP and _alive(self._client):
            return self._client
        if self.health is Health.DOWN and self.breaker.is_open():
            return None
        self._closed = False
        task = self._starting
        if task is None or task.done():
            task = self._starting = asyncio.get_running_loop().create_task(self._start())
        return await asyncio.shield(task)

    async def _start(self) -> Client[Any] | None:
        try:
            return await self._start_once()
        finally:
            attempted, self._attempted = self._attempted, anyio.Event()
            attempted.set()

    async def _start_once(self) -> Client[Any] | None:
        async with self._lock:
            if self._client is not None and self.health is Health.UP and _alive(self._client):
                return self._client
            await self._close_locked()
            self.health, self.reason = Health.STARTING, "starting"
            self._start_waited_out, self._start_began = False, time.time()
            try:
                with anyio.fail_after(self.connect_timeout_s):
                    stack = AsyncExitStack()
                    client: Client[Any] = Client(
                        await self._transport(), timeout=self.connect_timeout_s
                    )
                    self._stack = stack
                    await stack.enter_async_context(client)
                    listed = await client.list_tools()
            except TimeoutError:
                await self._close_locked()
                return self._down(
                    self._stderr_reason(f"did not start within {self.connect_timeout_s:g} s")
                )
            except Exception as exc:  # any failure to start is a reason, not a crash
                await self._close_locked()
                return self._down(self._stderr_reason(_why(exc, self._secret_values())))
            self.tools = {t.name: t for t in listed}
            missing = [t for t in CONTRACT_TOOLS if t not in self.tools]
            if missing:
                await self._close_locked()
                return self._down(
                    f"does not speak the platform tool contract (missing: {', '.join(missing)})"
                )
            self._client = client
            self._generation += 1
            self.health, self.reason = Health.UP, "ok"
            self._lost_connection = False
            log.info("%s: up", self.name)
            if self.on_up is not None:
                self.on_up(self.name)
            return client

    def _stderr_reason(self, fallback: str) -> str:
        """The server's own last words beat "Connection closed"."""
        said = childlog.tail(self.log_file, self._secret_values())
        return f"{fallback}; stderr: {said}" if said else fallback

    def _secret_values(self) -> list[str]:
        mine = {k: v for k, v in self.env.items() if k not in QUIET and not k.endswith(_PLAIN)}
        return childlog.secret_values(mine)

    def _down(self, reason: str, immediate: bool = False) -> None:
        # an in-process server's failure (its build, its start) may quote its credentials
        reason = childlog.masked(reason, self._secret_values())
        self.health, self.reason = Health.DOWN, reason
        delay = self.breaker.failed(immediate)
        log.warning("%s: down (next try in %.0f s): %s", self.name, delay, reason)
        self._schedule_retry()
        return None

    def _schedule_retry(self) -> None:
        """Restart in the background when the backoff ends, so calls never wait for it."""
        if self._closed or (self._retry is not None and not self._retry.done()):
            return
        self._retry = asyncio.get_running_loop().create_task(self._retry_loop())

    def _up(self) -> bool:
        """Read afresh (not narrowed by a check before an await)."""
        return self.health is Health.UP

    async def _retry_loop(self) -> None:
        while not self._closed and self.health is not Health.UP:
            await self.sleep(max(0.05, min(self.breaker.retry_in(), 60.0)))
            if self._closed or self._up():  # the await may have changed either
                return
            if not self.breaker.is_open():
                await self.ensure()

    def unavailable(self) -> Outcome:
        """The fail-fast answer while the breaker is open."""
        wait = math.ceil(self.breaker.retry_in())
        return Outcome.failure(
            ErrorKind.UNAVAILABLE,
            f"{self.name} is down ({self.reason}); next try in {wait} s. "
            "Use the other platforms meanwhile; status() shows why.",
        )

    def still_starting(self) -> Outcome:
        since = f" ({time.time() - self._start_began:.0f} s so far)" if self._start_began else ""
        return Outcome.failure(
            ErrorKind.UNAVAILABLE,
            f"{self.name} is still starting{since}; call again later, status() shows progress.",
        )

    async def call(
        self, tool: str, arguments: dict[str, Any], timeout_s: float, retried: bool = False
    ) -> Outcome:
        began = anyio.current_time()
        client: Client[Any] | None = None
        while client is None:
            left = timeout_s - (anyio.current_time() - began)
            if self.health is Health.DOWN and self.breaker.is_open():
                if not await self._wait_for_restart(left):
                    return self.unavailable()
                left = timeout_s - (anyio.current_time() - began)
            if self.health is Health.STARTING and self._start_waited_out:
                return self.still_starting()  # a call already waited this start out
            with anyio.move_on_after(left) as waiting:
                client = await self.ensure()
            if client is None and self.health is Health.STARTING:
                self._start_waited_out = waiting.cancelled_caught
                return self.still_starting()
            if client is None and not self._lost_connection:
                return self.unavailable()
        generation = self._generation
        remaining = max(0.5, timeout_s - (anyio.current_time() - began))
        again = ", try again later" if tool in _RETRY_SAFE else ""  # a write may have landed
        try:
            # The raw result: its structured content is validated once, by the typed models
            # where it is used (call_tool would also build classes from the outputSchema).
            result = await client.call_tool_mcp(tool, arguments, timeout=remaining)
        except MCPError as exc:
            text = str(exc)
            if exc.code == INVALID_PARAMS:  # the server's answer (e.g. no such tool): it lives
                self.breaker.succeeded()
                return Outcome.failure(
                    ErrorKind.NOT_SUPPORTED,
                    f"the {self.name} server refused {tool}: {_why(exc, self._secret_values())}",
                )
            if exc.code == REQUEST_TIMEOUT:
                # A hung server: stop it and restart it in the background, with backoff.
                await self._lost(generation, f"hung: no answer to {tool} within {timeout_s:g} s")
                return Outcome.failure(
                    ErrorKind.TIMEOUT,
                    f"{self.name} did not answer {tool} within {timeout_s:g} s; "
                    f"it is restarted in the background{again}.",
                )
            # The process died or the connection broke: restart it now for the next call.
            await self._lost(generation, f"connection lost during {tool} ({text[:80]})", True)
            left = timeout_s - (anyio.current_time() - began)
            if tool in _RETRY_SAFE and not retried and left > 1:
                # A read may be sent again: a crash noticed only by this call costs no error.
                return await self.call(tool, arguments, left, retried=True)
            return Outcome.failure(
                ErrorKind.UNAVAILABLE,
                f"the {self.name} server stopped during {tool}; it is being restarted{again}.",
            )
        except Exception as exc:
            return Outcome.failure(
                ErrorKind.UNAVAILABLE,
                f"{self.name} {tool} failed: {_why(exc, self._secret_values())}",
            )
        self.breaker.succeeded()  # the process answered, whatever the platform said
        outcome = Outcome.answered(result)
        if not outcome.ok:  # a server's error may quote its credentials (a URL with its key)
            outcome.message = childlog.masked(outcome.message, self._secret_values())
        # Capabilities say more (configured, reachable): platform_client observes those.
        if not outcome.ok or tool != "capabilities":
            self.platform_health.observe(outcome.kind, outcome.message, outcome.retry_after)
        return outcome

    async def _wait_for_restart(self, timeout_s: float) -> bool:
        """After a crash, the restart under way (or due within this call's time) is
        waited for, bounded by the call's time: True when the server is up or being
        started again. A server that hangs or cannot start keeps failing fast."""
        if not self._lost_connection or self._closed or timeout_s <= 0:
            return False
        deadline = anyio.current_time() + timeout_s
        with anyio.move_on_after(timeout_s):
            while self.health is Health.DOWN and self.breaker.is_open():
                if self.breaker.retry_in() > deadline - anyio.current_time():
                    return False  # the next try comes after this call's time
                self._schedule_retry()
                await self._attempted.wait()
        return not (self.health is Health.DOWN and self.breaker.is_open())

    async def _lost(self, generation: int, reason: str, immediate: bool = False) -> None:
        """Mark down once per broken connection (concurrent calls see the same break)."""
        async with self._lock:
            if generation != self._generation or self.health is not Health.UP:
                return
            detached = self._detach()
            self._lost_connection = self._lost_connection or immediate
            self._down(self._stderr_reason(reason), immediate)
        # Stopping a hung child takes seconds (stdin closed, a grace period, SIGTERM):
        # not on the caller's time.
        task = asyncio.get_running_loop().create_task(self._dispose(*detached))
        self._reaping.add(task)
        task.add_done_callback(self._reaping.discard)

    def view(self) -> dict[str, Any]:
        """Both layers, for `status`."""
        row: dict[str, Any] = {"health": self.health.value, "reason": self.reason}
        if self.health is Health.DOWN and self.breaker.next_try is not None:
            row["next_try_in_s"] = math.ceil(self.breaker.retry_in())
        row["platform"] = (
            self.platform_health.view()
            if self.health is Health.UP
            else {"state": PlatformState.UNKNOWN.value}
        )
        return row

    def _detach(self) -> tuple[AsyncExitStack | None, StdioTransport | None]:
        stack, self._stack, self._client = self._stack, None, None
        transport, self._spawned = self._spawned, None
        return stack, transport

    async def _close_locked(self) -> None:
        await self._dispose(*self._detach())

    async def _dispose(
        self, stack: AsyncExitStack | None, transport: StdioTransport | None
    ) -> None:
        if stack is None and transport is None:
            return
        with anyio.move_on_after(10, shield=True):
            try:
                if stack is not None:
                    await stack.aclose()
                # keep_alive leaves the child running after the client exits: stop it
                # (stdin closed, then SIGTERM/SIGKILL to its tree), hung or not.
                if transport is not None:
                    await transport.close()
            except Exception as exc:  # a dead child may fail to close cleanly
                log.debug("%s: close: %s", self.name, type(exc).__name__)

    async def close(self) -> None:
        self._closed = True
        for task in (self._retry, self._starting):
            if task is not None and not task.done() and task is not asyncio.current_task():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        self._retry = self._starting = None
        for reaping in list(self._reaping):
            with contextlib.suppress(BaseException):
                await reaping
        async with self._lock:
            await self._close_locked()
            self.health, self.reason = Health.DOWN, "closed"
            self.breaker.succeeded()  # a deliberate close is not a failure


def _alive(client: Client[Any]) -> bool:
    """False when a stdio child died while idle, so the next call restarts it first
    instead of failing on the dead pipe."""
    transport = client.transport
    task = getattr(transport, "_connect_task", None)
    if isinstance(task, asyncio.Task) and task.done():
        return False
    dead = getattr(transport, "_is_session_dead", None)
    return not (callable(dead) and dead())


def _why(exc: BaseException, secrets: list[str]) -> str:
    # masked before it is cut: a secret cut in two would pass the mask
    said = childlog.masked(str(exc), secrets).strip()
    text = said.splitlines()[0] if said else ""
    return f"{type(exc).__name__}: {text[:160]}" if text else type(exc).__name__
