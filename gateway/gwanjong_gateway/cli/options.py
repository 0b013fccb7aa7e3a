"""The global options, accepted before the subcommand and after every one of them
(`gwanjong --config x.toml setup` and `gwanjong setup --config x.toml` alike)."""

from __future__ import annotations

import argparse
from typing import Any

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def _level(value: str) -> str:
    """`--log-level info` is as good as INFO; anything else is a clear usage error."""
    upper = value.upper()
    if upper not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(
            f"invalid choice: {value!r} (choose from {', '.join(LOG_LEVELS)})"
        )
    return upper


def global_options(p: argparse.ArgumentParser, top: bool = False, port: bool = True) -> None:
    """On the top parser with their defaults; on a subcommand with SUPPRESS, so a value
    given there wins and one given before the subcommand is kept. `port=False` for a
    subcommand whose own `--port` means something else (the sandbox)."""

    def default(value: Any) -> Any:
        return value if top else argparse.SUPPRESS

    p.add_argument(
        "--config",
        default=default(None),
        help="gateway.toml to use (default: $GWANJONG_CONFIG, ./gateway.toml, the user config "
        "dir: ~/.config/gwanjong/gateway.toml on Linux; `gwanjong doctor` shows which)",
    )
    p.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default=default("stdio"),
        help="how to serve (default stdio, what MCP clients launch)",
    )
    if port:
        p.add_argument(
            "--port",
            type=int,
            default=default(8765),
            help="HTTP port (with --transport http; default 8765; 0 = a free one, announced on stderr)",
        )
    p.add_argument(
        "--host",
        default=default("127.0.0.1"),
        help="HTTP address (default 127.0.0.1; any other needs [auth] in gateway.toml)",
    )
    p.add_argument(
        "--log-level",
        type=_level,
        default=default("WARNING"),
        metavar="{" + ",".join(LOG_LEVELS) + "}",
        help="how much the gateway logs to stderr (default WARNING)",
    )


def config_and_log_level(p: argparse.ArgumentParser) -> None:
    """`--config` and `--log-level` alone, for a subcommand with its own `--host`/`--port`."""
    p.add_argument("--config", default=argparse.SUPPRESS, help="gateway.toml to use")
    p.add_argument(
        "--log-level",
        default=argparse.SUPPRESS,
        type=_level,
        metavar="{" + ",".join(LOG_LEVELS) + "}",
        help="how much to log to stderr (default WARNING)",
    )
