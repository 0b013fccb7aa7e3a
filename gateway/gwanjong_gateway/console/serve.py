"""Serving the console: its own listener (uvicorn on a socket bound first, so a random
port is known before the sign-in link is printed), from `gwanjong console` or from the
gateway's lifespan when `[console] enabled = true`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from gwanjong_gateway import web
from gwanjong_gateway.console.app import Console
from gwanjong_gateway.console.routes import build_app
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.platforms.watched import Watched
from gwanjong_gateway.team.auth import is_loopback, listen
from gwanjong_gateway.usage.log import UsageLog


def bind_problem(console: Console) -> str | None:
    """Why the console must not start at its address, or None."""
    if not is_loopback(console.host) and console.config.auth.mode == "none":
        return (
            f"refusing to serve the console on {console.host} without sign-in: anyone who "
            'can reach it could approve writes in your name. Set [auth] mode = "tokens" '
            '(then `gwanjong token add NAME`) or mode = "jwt" in gateway.toml, or serve it '
            "on 127.0.0.1."
        )
    if console.host in ("0.0.0.0", "::") and not console.config.console.public_url:
        return (
            f"the console on {console.host} would link to http://{console.host}:..., which "
            "opens from nowhere: set [console] public_url to the address people open, or "
            "--host to that address."
        )
    return None


async def serve(console: Console, announce: Callable[[str], None]) -> None:
    """Listen (``console.port`` becomes the bound port), ``announce`` the first sign-in
    link, serve until cancelled."""
    sock = listen(console.host, console.port)
    console.port = int(sock.getsockname()[1])
    announce(console.signin_link())
    await web.serve(build_app(console), sock)


def for_gateway(gw: Gateway, **kwargs: Any) -> Console:
    """The console of a gateway at its configured `[console]` address."""
    section = gw.config.console
    return Console(gw, host=section.host, port=section.port, **kwargs)


def serve_for_gateway(gw: Gateway, usage: UsageLog | None = None) -> Watched:
    """The gateway's lifespan: a console without sign-in off loopback stops the start; the link
    goes to stderr (stdout is the MCP wire)."""
    console = for_gateway(gw, usage=usage)  # the gateway's own log: its figures, unflushed too
    problem = bind_problem(console)
    if problem:
        raise RuntimeError(f"[console] {problem}")

    def announce(link: str) -> None:
        sys.stderr.write(
            f"gwanjong console: open {link} (it signs you in once, within 15 minutes)\n"
        )
        sys.stderr.flush()

    console.take_approval_links()  # URL-mode elicitation leads to the console's page
    task = Watched("the console")
    task.start(serve(console, announce))
    return task
