"""Bundled platforms hosted in the gateway's own interpreter, still spoken to over MCP.

An installed package declares a platform in the `gwanjong.platforms` entry-point group: a
function that builds its FastMCP server from a mapping of that platform's variables. The
gateway loads it on the platform's first use (the import runs in a worker thread, so the
event loop keeps answering) and connects through FastMCP's in-memory transport. The server
package is never imported by name here: the import-linter boundary holds.

In-process there is no crash isolation: an adapter that blocks the thread blocks the
gateway. Calls still have timeouts and exceptions still come back as tool errors; set
`isolation = "process"` for a platform that needs more.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import Any, cast

import anyio.to_thread
from fastmcp import FastMCP
from fastmcp.client.transports import FastMCPTransport

log = logging.getLogger(__name__)

GROUP = "gwanjong.platforms"
Factory = Callable[[Mapping[str, str]], FastMCP[Any]]


class HostingError(Exception):
    """The platform could not be built in-process; the text is the reason shown in status."""


def entry_point(name: str) -> EntryPoint | None:
    found = list(entry_points(group=GROUP, name=name))
    return found[0] if found else None


def installed() -> list[str]:
    """Platform names that installed packages declare."""
    return sorted({ep.name for ep in entry_points(group=GROUP)})


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
        raise HostingError(f"could not build the server: {text[:200]}") from exc
    if not isinstance(server, FastMCP):
        raise HostingError(f"{GROUP}:{name} did not return a FastMCP server")
    log.info("%s: hosted in-process", name)
    return FastMCPTransport(server)
