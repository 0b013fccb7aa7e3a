"""`notifications/tools/list_changed` for exposed tools whose definition replaces their
placeholder (expose.py), in each protocol era's way.

2025-11-25: to every open session seen making a request (held weakly). 2026-07-28: to
clients that opened `subscriptions/listen` (SEP-2575), which FastMCP 4 does not serve, so
the SDK's `ListenHandler` is registered on the low-level server over this in-process bus.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import Callable
from typing import Any

import anyio
import anyio.lowlevel
from fastmcp import FastMCP
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from mcp.server.subscriptions import ListenHandler, ServerEvent, ToolsListChanged
from mcp.types import SubscriptionsListenRequestParams, ToolListChangedNotification
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

log = logging.getLogger(__name__)
SEND_WITHIN_S = 5.0  # per session: a notification is worth no longer wait


class ToolChanges:
    """Announces a changed tool list to every client that can hear it (both eras)."""

    def __init__(self) -> None:
        self._sessions: weakref.WeakSet[Any] = weakref.WeakSet()
        self._listeners: dict[object, Callable[[ServerEvent], None]] = {}
        self._sending: set[asyncio.Task[None]] = set()

    def attach(self, mcp: FastMCP[Any]) -> ToolChanges:
        mcp.add_middleware(_SeenSessions(self._sessions))
        lowlevel: Any = mcp._mcp_server  # pyright: ignore[reportPrivateUsage]
        lowlevel.add_request_handler(
            "subscriptions/listen", SubscriptionsListenRequestParams, ListenHandler(self)
        )
        return self

    # The SDK's SubscriptionBus protocol (what ListenHandler listens on).
    async def publish(self, event: ServerEvent) -> None:
        self._fan_out(event)
        await anyio.lowlevel.checkpoint()

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        token = object()
        self._listeners[token] = listener

        def unsubscribe() -> None:
            self._listeners.pop(token, None)

        return unsubscribe

    def changed(self) -> None:
        """The tool list changed: tell the listen streams now and the sessions soon (a
        send is async; this is called from a synchronous callback)."""
        self._fan_out(ToolsListChanged())
        sessions = list(self._sessions)
        if not sessions:
            return
        task = asyncio.get_running_loop().create_task(self._tell(sessions))
        self._sending.add(task)  # kept until done: a task nobody holds may be collected
        task.add_done_callback(self._sending.discard)

    def _fan_out(self, event: ServerEvent) -> None:
        for listener in list(self._listeners.values()):
            try:
                listener(event)
            except Exception:  # one broken stream must not starve the others
                log.debug("a listen stream refused an event", exc_info=True)

    async def _tell(self, sessions: list[Any]) -> None:
        for session in sessions:
            # A session that closed meanwhile: nothing to tell, and no error to anyone; one
            # that stopped reading does not hold up the others.
            with contextlib.suppress(Exception), anyio.move_on_after(SEND_WITHIN_S):
                await session.send_notification(ToolListChangedNotification())


class _SeenSessions(Middleware):
    """Remembers each session-era client (weakly) when it makes a request."""

    def __init__(self, sessions: weakref.WeakSet[Any]) -> None:
        self.sessions = sessions

    async def on_request(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        ctx = context.fastmcp_context
        request = ctx.request_context if ctx is not None else None
        if request is not None and request.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            with contextlib.suppress(Exception):  # no session (a server-side call): nothing kept
                self.sessions.add(ctx.session)  # pyright: ignore[reportOptionalMemberAccess]
        return await call_next(context)
