"""`gwanjong link [CLIENT...]`: add, update or `--remove` the gwanjong entry in MCP clients'
config files (docs/use/link.md): every other byte kept (link/jsonc.py), a backup before the
first change, `--dry-run` prints the diff, `--sandbox` adds a `gwanjong-sandbox` entry.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO, cast

from gwanjong_gateway.cli.link.apply import LinkError, Outcome, plan_add, plan_remove, write
from gwanjong_gateway.cli.link.clients import ENTRY, SANDBOX_ENTRY, Client, clients
from gwanjong_gateway.cli.options import command, tcp_port

_CHANGES = (Outcome.ADDED, Outcome.UPDATED, Outcome.REMOVED)


def _installed(client: Client) -> bool:
    return any(Path(str(p)).exists() for p in client.installed)


def choose(
    names: list[str], known: dict[str, Client], err: TextIO, remove: bool = False
) -> list[Client] | None:
    unknown = [n for n in names if n not in known]
    if unknown:
        err.write(
            f"gwanjong link: unknown client {', '.join(map(repr, unknown))}; "
            f"known: {', '.join(known)}.\n"
        )
        return None
    if names:
        return [known[n] for n in dict.fromkeys(names)]
    found = [c for c in known.values() if _installed(c)]
    if not found and remove:  # an uninstall script's step: done
        err.write("gwanjong link: found no MCP client's config folder here: nothing to remove.\n")
        return []
    if not found:
        places = "; ".join(f"{c.name}: {c.path}" for c in known.values())
        err.write(
            "gwanjong link: found no MCP client's config folder here. Name the client to "
            f"link (it is created): `gwanjong link cursor`. Looked for {places}.\n"
        )
        return None
    return found


def _sandbox_port(value: str) -> int:
    if tcp_port(value) == 0:  # the entry names the port: 0 is no address to reach
        raise argparse.ArgumentTypeError(f"{value!r}: give the sandbox's port, 1 to 65535")
    return int(value)


def _words(line: str, system: str) -> list[str]:
    """A command line's words as that OS's shell reads them: on Windows a backslash is a
    path's, and the quotes around a word are not part of it (shlex keeps them there)."""
    if system != "win32":
        return shlex.split(line)
    words = shlex.split(line, posix=False)
    return [w[1:-1] if len(w) > 1 and w[0] == w[-1] and w[0] in "\"'" else w for w in words]


def _command_line(value: str) -> str:
    # blank, it wrote "command": "--config"; an open quote raised a traceback
    try:
        if _words(value, sys.platform):
            return value
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{value!r}: give a command line, e.g. 'uvx gwanjong'")


def gateway_command(config: Path, override: str | None, system: str = sys.platform) -> list[str]:
    """How the client starts the gateway: as `gwanjong init` prints it, or ``override``
    (a command line, split as ``system``'s shell would) followed by `--config <file>`."""
    if override:
        return [*_words(override, system), "--config", str(config)]
    from gwanjong_gateway.cli.init import launch_command

    return launch_command(config)


def run_link(
    names: list[str],
    *,
    config: str | None = None,
    remove: bool = False,
    dry_run: bool = False,
    sandbox: bool = False,
    sandbox_port: int = 8799,
    command: str | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    system: str = sys.platform,
    environ: Mapping[str, str] | None = None,
) -> int:
    """0: every chosen client linked (or already was); 1: one or more refused; 2: usage."""
    out = out or cast(TextIO, sys.stdout)
    err = err or cast(TextIO, sys.stderr)
    env = os.environ if environ is None else environ
    if not (env.get("USERPROFILE") if system == "win32" else None) and not env.get("HOME"):
        # every client's config is under the home folder: none would be found, "~" written
        home = "USERPROFILE" if system == "win32" else "HOME"
        err.write(
            f"gwanjong link: {home} is not set, so no client's config can be found. "
            f"Set it to your home folder and run this again.\n"
        )
        return 2
    chosen = choose(names, clients(system, env), err, remove)
    if chosen is None:
        return 2
    name = SANDBOX_ENTRY if sandbox else ENTRY
    gateway: list[str] = []
    if not remove:
        found = _gateway_config(config, sandbox, sandbox_port, dry_run, out, err)
        if found is None:
            return 2
        gateway = gateway_command(found, command, system)
    failed = 0
    for client in chosen:
        try:
            out.write(_one(client, name, gateway, dry_run, out))
        except LinkError as exc:
            err.write(f"gwanjong link: {client.label}: {exc}\n")
            failed += 1
    if not dry_run and not remove and len(chosen) > failed:
        out.write("Restart the client (or reload its MCP servers) to start the gateway.\n")
        if sandbox:
            out.write(
                f"Start the sandbox first, and keep it running: gwanjong sandbox --port {sandbox_port}\n"
            )
    return 1 if failed else 0


def _one(client: Client, name: str, gateway: list[str], dry_run: bool, out: TextIO) -> str:
    """Link (``gateway`` given) or unlink one client; the line that says what happened."""
    path = Path(str(client.path))
    if gateway:
        plan = plan_add(path, client.key, name, client.entry(gateway))
    else:
        plan = plan_remove(path, client.key, name)
    backup = None
    if dry_run:  # only our entry's own words are shown: a model may read what this prints
        out.write(plan.diff(frozenset([*gateway, *dict(client.extra).values()])))
    elif plan.outcome in _CHANGES:
        backup = write(plan, client.key, name)
    said = f"would be {plan.outcome}" if dry_run and plan.outcome in _CHANGES else plan.outcome
    line = f"{client.name:<15} {path}: {name!r} {said}"
    return line + (f" (backup of the original: {backup})" if backup else "") + "\n"


def _gateway_config(
    explicit: str | None, sandbox: bool, port: int, dry_run: bool, out: TextIO, err: TextIO
) -> Path | None:
    """The gateway.toml the linked entry names (absolute), or None after saying why not."""
    from gwanjong_gateway.config.load import load

    config, path = load(explicit, check_env=False)
    if sandbox:
        from gwanjong_gateway.cli.link.sandbox import write_sandbox_config

        written, changed = write_sandbox_config(config.state_dir, port, dry_run)
        if changed:
            verb = "would write" if dry_run else "wrote"
            out.write(f"{verb} {written} (every platform -> the sandbox on 127.0.0.1:{port})\n")
        return written.absolute()
    if path is None:
        err.write(
            "gwanjong link: no gateway.toml found for the entry to name. Write one with "
            "`gwanjong init` (or pass --config PATH), then run `gwanjong link` again; or try "
            "it on the local sandbox: `gwanjong link --sandbox`.\n"
        )
        return None
    return path.absolute()


def _link(args: argparse.Namespace) -> int:
    return run_link(
        args.clients,
        config=args.config,
        remove=args.remove,
        dry_run=args.dry_run,
        sandbox=args.sandbox,
        sandbox_port=args.sandbox_port,
        command=args.command_line,
    )


def add_link(sub: Any) -> None:
    p = command(
        sub,
        "link",
        "add the gwanjong entry to MCP clients' configs (Claude, Cursor, VS Code…)",
        _link,
        serving=False,  # --transport, --host and --port: link serves nothing
    )
    p.add_argument(
        "clients",
        nargs="*",
        metavar="CLIENT",
        help="claude-desktop, claude-code, cursor, vscode, windsurf, zed "
        "(default: each one whose config folder exists)",
    )
    p.add_argument("--dry-run", action="store_true", help="print the diff, write nothing")
    p.add_argument("--remove", action="store_true", help="remove the entry instead")
    p.add_argument(
        "--sandbox",
        action="store_true",
        help="link 'gwanjong-sandbox': a gateway that talks only to the local sandbox",
    )
    p.add_argument(
        "--sandbox-port", type=_sandbox_port, default=8799, help="the sandbox's port (default 8799)"
    )
    p.add_argument(
        "--command",
        dest="command_line",
        type=_command_line,
        metavar="COMMAND",
        help="how the client starts gwanjong, e.g. 'uvx gwanjong' (default: as "
        "`gwanjong init` prints it); --config <file> is added",
    )
