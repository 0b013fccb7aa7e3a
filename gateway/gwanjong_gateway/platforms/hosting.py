"""Bundled platforms hosted in the gateway's own interpreter, still spoken to over MCP.

A package declares a platform in the `gwanjong.platforms` entry-point group; it is loaded
on first use (imported in a worker thread) and reached over FastMCP's in-memory transport,
never imported by name (the import-linter boundary). No crash isolation in-process: use
`isolation = "process"` for a platform that needs it.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import Any, cast

import anyio.to_thread
import mcp.types
from fastmcp import FastMCP
from fastmcp.client.transports import FastMCPTransport
from fastmcp.client.transports.base import TransportOptions, VersionAwareClientSession
from mcp import ClientSession

from gwanjong_gateway.bundled import GROUP, entry_point

log = logging.getLogger(__name__)

#: An entry point's `hosted(env)`: it should return a FastMCP server, and `in_process`
#: checks that it did (a third-party entry point may return anything).
Factory = Callable[[Mapping[str, str]], object]


class HostingError(Exception):
    """The platform could not be built in-process; the text is the reason shown in status."""


async def load_factory(name: str) -> Factory:
    ep = entry_point(name)
    if ep is None:
        raise HostingError(f"no installed package declares the {name!r} platform ({GROUP})")
    try:
        # The first import of an SDK takes a CPU-second or more: never on the event loop.
        loaded = await anyio.to_thread.run_sync(ep.load)
    except ImportError as exc:  # declared, but the package (or a dependency) is gone
        package = ep.dist.name if ep.dist is not None else ep.value.partition(".")[0]
        raise HostingError(
            f"its server package ({package}) is not installed here ({type(exc).__name__}: "
            f"{exc}); reinstall gwanjong with its dependencies, or give command = [...]"
        ) from exc
    except Exception as exc:
        raise HostingError(f"could not import {ep.value}: {type(exc).__name__}: {exc}") from exc
    if not callable(loaded):
        raise HostingError(f"{ep.value} is not a function")
    return cast(Factory, loaded)


async def in_process(name: str, env: Mapping[str, str]) -> FastMCPTransport:
    """The platform's server built from `env`, behind an in-memory MCP transport."""
    factory = await load_factory(name)
    try:
        server = factory(dict(env))
    except Exception as exc:  # bad settings, a broken adapter: a reason, never a crash
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise HostingError(f"could not build the server: {text}") from exc  # masked, then cut
    if not isinstance(server, FastMCP):
        raise HostingError(f"{GROUP}:{name} did not return a FastMCP server")
    log.info("%s: hosted in-process", name)
    return InProcessTransport(cast("FastMCP[Any]", server))  # isinstance cannot check [Any]


class _TypedBoundarySession(VersionAwareClientSession):
    """Leaves a result's structured content to the gateway's typed models: the client's own
    jsonschema pass would validate it twice (~10% of a warm scout's CPU). Out-of-process
    servers keep the client's check."""

    async def validate_tool_result(self, name: str, result: mcp.types.CallToolResult) -> None:
        return None


class InProcessTransport(FastMCPTransport):
    """FastMCP's in-memory transport, with the session above unless the client asks for one."""

    @contextlib.asynccontextmanager
    async def connect_session(
        self, *, transport_options: TransportOptions | None = None, **session_kwargs: Any
    ) -> AsyncGenerator[ClientSession, None]:
        options = transport_options or TransportOptions(session_class=_TypedBoundarySession)
        async with super().connect_session(transport_options=options, **session_kwargs) as session:
            yield session
