"""`gwanjong console`: serve the local web console and print its one-time sign-in link."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gwanjong_gateway.cli.options import command, tcp_port


def _console(args: argparse.Namespace) -> int:
    from gwanjong_gateway.cli.logfile import log_as_asked
    from gwanjong_gateway.cli.serve_loop import run_until_signal
    from gwanjong_gateway.config.load import load
    from gwanjong_gateway.console import serve as console_serve
    from gwanjong_gateway.gateway import Gateway

    config, _path = load(args.config)
    gateway = Gateway(config)
    console = console_serve.for_gateway(gateway)
    if args.console_host is not None:
        console.host = args.console_host
    if args.console_port is not None:
        console.port = args.console_port
    problem = console_serve.bind_problem(console)
    if problem:
        print(f"gwanjong console: {problem}", file=sys.stderr)
        return 2
    log_as_asked(config, args.log_level)

    def announce(link: str) -> None:
        if gateway.notifier is not None and not gateway.notifier.base_url:
            gateway.notifier.base_url = console.base_url()  # the port is known now
        print(f"gwanjong console: open {link}", flush=True)
        print(
            "  (the link signs you in once, within 15 minutes; run `gwanjong console` again for"
            " a new one)",
            flush=True,
        )

    async def serve() -> None:
        from gwanjong_gateway.notify.background import start_notifier
        from gwanjong_gateway.watch.watcher import start_watching

        # [watch] enabled: the console's process watches
        running = [start_notifier(gateway), start_watching(gateway)]
        try:
            await console_serve.serve(console, announce)
        except OSError as exc:
            print(
                f"gwanjong console: cannot listen on {console.host}:{console.port}: {exc.strerror or exc}",
                file=sys.stderr,
            )
        finally:
            for task in running:
                if task is not None:
                    await task.stop()

    run_until_signal(serve, gateway.aclose)
    return 0


def add_console(sub: Any) -> None:
    c = command(
        sub,
        "console",
        "serve the local web console (approvals, hand-offs, history, usage)",
        _console,
        serving=False,
    )
    c.add_argument(
        "--host",
        dest="console_host",
        metavar="H",
        default=None,
        help="address (default: [console] host, 127.0.0.1; any other needs [auth])",
    )
    c.add_argument(
        "--port",
        dest="console_port",
        metavar="N",
        type=tcp_port,
        default=None,
        help="port (default: [console] port; 0 = a random free port)",
    )
