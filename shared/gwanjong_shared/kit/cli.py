"""The `main()` every platform server shares: parse flags, load settings, serve."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import pydantic
from fastmcp import FastMCP

from gwanjong_shared.kit.logs import configure_logging
from gwanjong_shared.kit.quiet import quiet_fastmcp
from gwanjong_shared.kit.server import run_server
from gwanjong_shared.kit.settings import PlatformSettings
from gwanjong_shared.kit.tracing import start_tracing_from_env

S = TypeVar("S", bound=PlatformSettings)


def _port(value: str) -> int:
    # past 0..65535, bind() raised OverflowError as a traceback
    if not (value.isascii() and value.isdigit() and int(value) <= 65535):
        raise argparse.ArgumentTypeError(f"{value!r}: give a port from 0 to 65535")
    return int(value)


def serve_main(
    prog: str,
    label: str,
    settings_cls: type[S],
    build: Callable[[S], FastMCP[Any]],
    argv: list[str] | None = None,
) -> None:
    parser = argparse.ArgumentParser(
        prog=prog, description=f"MCP server for {label} (gwanjong platform contract)."
    )
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    parser.add_argument(
        "--port", type=_port, default=8000, help="for --transport http (127.0.0.1 only)"
    )
    args = parser.parse_args(argv)
    quiet_fastmcp()
    # Spawned by the gateway, a server takes its settings from the env it was given alone:
    # a .env in the working directory may hold other platforms' secrets.
    env_file = None if os.environ.get("GWANJONG_SPAWNED") == "1" else ".env"
    try:
        settings = settings_cls(_env_file=env_file)  # type: ignore[call-arg]
    except pydantic.ValidationError as exc:
        prefix = str(settings_cls.model_config.get("env_prefix", ""))
        problems = "; ".join(
            f"{prefix}{'_'.join(str(p) for p in e['loc']).upper()}: {e['msg']}"
            for e in exc.errors()
        )
        sys.exit(f"{prog}: bad settings ({problems}). Fix the environment or .env and start again.")
    configure_logging(settings.log_level)
    # Spawned by a gateway whose [telemetry] names an OTLP endpoint: this server's spans too.
    start_tracing_from_env(os.environ, prog)
    run_server(build(settings), args.transport, args.port)
