"""The global options, accepted before the subcommand and after every one of them
(`gwanjong --config x.toml setup` and `gwanjong setup --config x.toml` alike), and
`command`, which adds a subcommand with them."""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Callable, Collection
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


def count(value: str) -> int:
    """A --limit or a record's number: from 1 up to SQLite's largest INTEGER (a negative
    LIMIT there means no limit, and a larger number raised OverflowError)."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if not 1 <= number <= 2**63 - 1:
        raise argparse.ArgumentTypeError(f"{value!r}: give a whole number from 1 to {2**63 - 1}")
    return number


def unknown_platforms(names: list[str], known: Collection[str]) -> str:
    """What to say of the names not in `known` ('' when there are none): a close one, and
    every known name."""
    unknown = [n for n in names if n not in known]
    if not unknown:
        return ""
    close = difflib.get_close_matches(unknown[0], known, 1)
    return (
        f"not a platform here: {', '.join(repr(n[:40]) for n in unknown)}. "
        f"{f'Did you mean {close[0]}? ' if close else ''}Known: {', '.join(sorted(known))}."
    )


def tcp_port(value: str) -> int:
    """A --port: 0 (a free one) to 65535 (bind() raised OverflowError past them)."""
    if not (value.isascii() and value.isdigit() and int(value) <= 65535):
        raise argparse.ArgumentTypeError(f"{value!r}: give a port from 0 to 65535")
    return int(value)


def global_options(
    p: argparse.ArgumentParser, top: bool = False, port: bool = True, serving: bool = True
) -> None:
    """On the top parser with their defaults; on a subcommand with SUPPRESS, so a value
    given there wins and one given before the subcommand is kept. `port=False` for a
    subcommand whose own `--port` means something else (the sandbox); `serving=False` for
    one with its own `--host` and `--port` (console, watch): `--config` and `--log-level`."""

    def default(value: Any) -> Any:
        return value if top else argparse.SUPPRESS

    g = p.add_argument_group("global options (before or after the command)")
    g.add_argument(
        "--config",
        default=default(None),
        help="gateway.toml to use (default: $GWANJONG_CONFIG, ./gateway.toml, the user config "
        "dir: ~/.config/gwanjong/gateway.toml on Linux; `gwanjong doctor` shows which)",
    )
    if serving:
        g.add_argument(
            "--transport",
            choices=["stdio", "http"],
            default=default("stdio"),
            help="how to serve (default stdio, what MCP clients launch)",
        )
        g.add_argument(
            "--host",
            default=default("127.0.0.1"),
            help="HTTP address (default 127.0.0.1; any other needs [auth] in gateway.toml)",
        )
    if serving and port:
        g.add_argument(
            "--port",
            type=tcp_port,
            default=default(8765),
            help="HTTP port (with --transport http; default 8765; 0 = a free one, announced on stderr)",
        )
    g.add_argument(
        "--log-level",
        type=_level,
        default=default("WARNING"),
        metavar="{" + ",".join(LOG_LEVELS) + "}",
        help="how much the gateway logs to stderr (default WARNING)",
    )


def command(
    sub: Any, name: str, help: str, run: Callable[[argparse.Namespace], int], **options: bool
) -> argparse.ArgumentParser:
    """Add the subcommand ``name`` (run by ``run(args)``, which returns the exit code) to
    ``sub``, a parser's subparsers, with the global options (``options``: which)."""
    p = sub.add_parser(name, help=help)
    global_options(p, **options)
    p.set_defaults(run=run)
    return p


def principal_and_json(p: argparse.ArgumentParser, what: str, instead: str) -> None:
    """`--principal NAME` (only that caller's ``what``) and `--json` (instead of ``instead``)."""
    p.add_argument(
        "--principal",
        metavar="NAME",
        help=f"only the {what} of this signed-in caller (default: everyone's; '' = local ones)",
    )
    p.add_argument("--json", action="store_true", help=f"print JSON instead of {instead}")
