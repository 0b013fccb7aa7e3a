"""`gwanjong`: serve the gateway (stdio by default), or run the demo, sandbox, history or
review."""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

from gwanjong_gateway.cli.console import add_console
from gwanjong_gateway.cli.link.link_command import add_link
from gwanjong_gateway.cli.logfile import log_as_asked
from gwanjong_gateway.cli.options import (
    command,
    count,
    global_options,
    principal_and_json,
    tcp_port,
    unknown_platforms,
)
from gwanjong_gateway.cli.review.review_command import add_review
from gwanjong_gateway.cli.token import add_token_commands
from gwanjong_gateway.cli.watch import add_watch
from gwanjong_gateway.config import ConfigError
from gwanjong_gateway.config.load import load
from gwanjong_gateway.extras import MissingExtra, missing_message
from gwanjong_gateway.version import gwanjong_version
from gwanjong_shared.kit.logs import configure_logging


def _fail(message: str, code: int) -> int:
    """``message`` on stderr; the exit code."""
    print(message, file=sys.stderr)
    return code


def _serve(args: argparse.Namespace) -> int:
    from gwanjong_gateway.cli.lean import collect_less, remember_missing_modules
    from gwanjong_gateway.cli.serve_loop import run_until_signal
    from gwanjong_gateway.cli.telemetry import spans_only_when_traced
    from gwanjong_gateway.gateway import Gateway
    from gwanjong_gateway.observe.attach import ObserveProblem, attach
    from gwanjong_gateway.server import build_gateway
    from gwanjong_gateway.team.auth import bind_problem, build_auth, http_middleware, listen

    config, _path = load(args.config)
    auth = sock = None
    if args.transport == "http":
        auth = build_auth(config)
        problem = bind_problem(args.host, auth)
        if problem:
            return _fail(f"gwanjong: {problem}", 2)
        try:  # bound first: --port 0 picks a free port, announced once serving
            sock = listen(args.host, args.port)
        except OSError as exc:
            return _fail(
                f"gwanjong: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}; "
                "choose another --port (0 picks a free one)",
                2,
            )
    log_as_asked(config, args.log_level)
    spans_only_when_traced(os.environ, traced=bool(config.telemetry.otlp_endpoint))
    remember_missing_modules()
    gateway = Gateway(config)
    server = build_gateway(config, gateway=gateway, auth=auth)
    try:  # [telemetry], [metrics], [logging]
        observed = attach(server, gateway, config, auth, args.transport)
    except ObserveProblem as exc:
        return _fail(f"gwanjong: {exc}", 2)

    async def serve() -> None:
        async with observed.running():
            if sock is None:
                await server.run_stdio_async(show_banner=False)
                return
            host = f"[{args.host}]" if ":" in args.host else args.host
            port = int(sock.getsockname()[1])
            print(f"gwanjong: serving MCP on http://{host}:{port}/mcp", file=sys.stderr, flush=True)
            await server.run_http_async(
                host=args.host,
                port=port,
                show_banner=False,
                host_origin_protection="auto",
                middleware=http_middleware(config, auth),
                sockets=[sock],
                # uvicorn's own logging config would log past our masking (as web.serve)
                uvicorn_config={"log_config": None},
            )

    collect_less()  # built: what follows is per-call work
    # On SIGTERM or Ctrl-C, end every platform server this gateway spawned.
    run_until_signal(serve, gateway.aclose)
    return 0


def _history(args: argparse.Namespace) -> int:
    from gwanjong_gateway.bundled import installed
    from gwanjong_gateway.cli.history import print_history, resolve

    config, _ = load(args.config, check_env=False)  # reads the record only
    platform = args.platform and args.platform.lower()  # names are lower case: Reddit is reddit
    known = {*config.platforms, *installed()}
    if platform and (unknown := unknown_platforms([platform], known)):
        return _fail(f"gwanjong history: {unknown}", 2)
    if args.resolve is not None:
        if args.outcome is None:
            return _fail("gwanjong: --resolve needs --as posted|failed", 2)
        return resolve(config, args.resolve, args.outcome)
    return print_history(
        config,
        platform=platform,
        status=args.status,
        limit=args.limit,
        as_json=args.json,
        principal=args.principal,
    )


def _usage(args: argparse.Namespace) -> int:
    from gwanjong_gateway.record.readers import EVERYONE, Reader
    from gwanjong_gateway.usage.log import UsageUnavailable, open_usage
    from gwanjong_gateway.usage.report import as_json, format_report, parse_since

    config, _ = load(args.config)
    try:
        since = parse_since(args.since) if args.since else None
    except ValueError as exc:
        return _fail(f"gwanjong usage: {exc}", 2)
    # The CLI is the host's operator: everyone's figures, unless --principal picks one.
    reader = EVERYONE if args.principal is None else Reader.only(args.principal)
    with closing(open_usage(config)) as log:
        try:
            report = log.report(since, reader)
        except UsageUnavailable as exc:
            return _fail(f"gwanjong usage: {exc}", 1)
    print(as_json(report) if args.json else format_report(report))
    return 0


def _init(args: argparse.Namespace) -> int:
    from gwanjong_gateway.cli.init import run_init

    return run_init(Path(args.path) if args.path else None)


def _doctor(args: argparse.Namespace) -> int:
    from gwanjong_gateway.cli.doctor.doctor_command import run_doctor
    from gwanjong_gateway.cli.doctor.where import config_source

    config, path = load(args.config, check_env=False)  # a broken setup is what it looks at
    export = Path(args.export) if args.export else None
    source = config_source(path, args.config, os.environ)
    return run_doctor(
        config,
        path,
        fix=args.repair,
        export_to=export,
        source=source,
        start_servers=not args.offline,
    )


def _status(args: argparse.Namespace) -> int:
    from gwanjong_gateway.cli.status import print_status

    config, _ = load(args.config, check_env=False)  # reads the record only
    return print_status(config)


def _sandbox(args: argparse.Namespace) -> int:
    try:
        from gwanjong_sandbox.__main__ import main as sandbox_main
    except ModuleNotFoundError:
        return _fail(f"gwanjong sandbox: {missing_message('sandbox')}", 1)
    sandbox_main(["--port", str(args.port)])
    return 0


NO_TERMINAL = (
    "gwanjong setup: needs a terminal to type the credentials in (hidden); run it in one "
    "(`docker run -it ...`), or set the platform's variables in the environment or in "
    "<state_dir>/.env, or use the setup tool from an MCP client."
)


def _setup(args: argparse.Namespace) -> int:
    from gwanjong_gateway.setup.terminal import run_setup

    if not sys.stdin.isatty():
        return _fail(NO_TERMINAL, 2)
    config, _ = load(args.config)
    configure_logging(args.log_level)
    try:
        return run_setup(config, [args.platform] if args.platform else [])
    except EOFError:  # the input ended (Ctrl-D, or a closed pipe) before the answers
        return _fail(NO_TERMINAL, 2)


def _demo(args: argparse.Namespace) -> int:
    from gwanjong_gateway.cli.demo import DEFAULT_PLATFORMS, run_demo

    platforms = [p.lower() for p in args.platforms] if args.platforms else None
    if unknown := unknown_platforms(platforms or [], DEFAULT_PLATFORMS):
        return _fail(f"gwanjong demo: {unknown}", 2)
    return run_demo(topic=args.topic, platforms=platforms, keep=args.keep)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="gwanjong",
        description="MCP gateway: scout -> draft -> strike across Dev.to, Bluesky, X, Reddit, Mastodon and Hacker News.",
    )
    global_options(p, top=True)
    p.add_argument("--version", action="version", version=f"gwanjong {gwanjong_version()}")
    p.set_defaults(run=_serve)
    sub = p.add_subparsers(dest="command", help="what to do (default: serve)")
    command(sub, "serve", "serve the gateway (the default)", _serve)
    d = command(sub, "demo", "run scout -> draft -> strike against the local sandbox", _demo)
    d.add_argument("--topic", default="MCP gateway design", help="what to scout for")
    d.add_argument(
        "--platforms", nargs="*", default=None, help="which platforms (default: all six)"
    )
    d.add_argument(
        "--keep", action="store_true", help="keep its gateway.toml and state (default: deleted)"
    )
    sb = command(sub, "sandbox", "serve the platform emulators on 127.0.0.1", _sandbox, port=False)
    sb.add_argument("--port", type=tcp_port, default=8799, help="port to serve on (default 8799)")
    st = command(
        sub,
        "setup",
        "type a platform's credentials (hidden), save them, check the connection",
        _setup,
    )
    st.add_argument("platform", nargs="?", help="one platform (default: every enabled one)")
    from gwanjong_gateway.rules.ledger import RECORDED, RESOLVABLE  # light: no pydantic

    h = command(sub, "history", "list recorded strikes", _history)
    h.add_argument("--platform", help="only this platform's strikes")
    h.add_argument(
        "--status", choices=[str(s) for s in RECORDED], help="only strikes in this state"
    )
    h.add_argument("--limit", type=count, default=30, help="at most this many (default 30)")
    principal_and_json(h, "strikes", "lines")
    h.add_argument(
        "--resolve",
        type=count,
        metavar="RECORD",
        help="settle an unknown write by hand, after checking the platform (with --as)",
    )
    h.add_argument(
        "--as",
        dest="outcome",
        choices=[str(s) for s in RESOLVABLE],
        help="what the write turned out to be (with --resolve)",
    )
    u = command(sub, "usage", "calls, errors, latency and tokens per tool", _usage)
    u.add_argument("--since", default="7d", help="e.g. 7d, 24h, 30m; '' = everything kept")
    principal_and_json(u, "calls", "a table")
    i = command(sub, "init", "write a starter gateway.toml and print client configs", _init)
    i.add_argument("path", nargs="?", help="where (default: the user config dir, see --config)")
    doc = command(
        sub, "doctor", "what gwanjong uses and what is wrong with it", _doctor, port=False
    )
    doc.add_argument(
        "--repair",
        action="store_true",
        help="export every claim and unsure write first, then rebuild a damaged record "
        "carrying them over (run with the gateway stopped)",
    )
    doc.add_argument(
        "--export",
        help="where the export goes, never over an existing file (default: state_dir, else home)",
    )
    doc.add_argument(
        "--offline",
        action="store_true",
        help="do not start the platform servers (a server with credentials set looks its "
        "account up on the platform)",
    )
    command(
        sub,
        "status",
        "what waits for you, each platform's health, the last notification",
        _status,
        port=False,
    )
    add_token_commands(sub)
    add_review(sub)
    add_console(sub)
    add_watch(sub)
    add_link(sub)
    return p


INTRO = """gwanjong {version}: an MCP gateway that scouts the platforms you enable, drafts
replies, and sends a write only after a person approves it.

To start:
  gwanjong demo       try scout -> draft -> strike against a local sandbox (no accounts)
  gwanjong init       write a starter gateway.toml and print your MCP client's config
  gwanjong link       add gwanjong to an MCP client's config
  gwanjong status     what waits for you, each platform's health, the last notification
  gwanjong --help     every command

MCP clients start gwanjong themselves, with stdin as a pipe: then it serves MCP on
stdio (run `gwanjong serve` to do that here). Docs: docs/use/ in the repository."""


def main(argv: list[str] | None = None) -> None:
    given = sys.argv[1:] if argv is None else argv
    if not given and sys.stdin.isatty():  # a person typed `gwanjong`, not a client
        print(INTRO.format(version=gwanjong_version()))
        sys.exit(0)
    args: Any = parser().parse_args(argv)
    try:
        code = args.run(args)
        sys.stdout.flush()
    except ConfigError as exc:
        print(f"gwanjong: config error:\n{exc}", file=sys.stderr)
        code = 2
    except BrokenPipeError:
        # `gwanjong history | head`: the reader has what it wanted; end quietly. Point
        # stdout at devnull so the interpreter's final flush does not complain again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        code = 0
    except MissingExtra as exc:  # an optional part this command needs: one line, what to do
        print(f"gwanjong: {exc}", file=sys.stderr)
        code = 1
    except KeyboardInterrupt:  # the person's Ctrl-C (the demo cleans up first): one line
        print("gwanjong: stopped (Ctrl-C).", file=sys.stderr)
        code = 130
    sys.exit(code)


if __name__ == "__main__":
    main()
