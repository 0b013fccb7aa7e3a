"""`gwanjong`: serve the gateway (stdio by default), or run the demo, sandbox or history."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Any

import anyio

from gwanjong_gateway.config import ConfigError, load
from gwanjong_shared.logs import configure_logging


def _serve(args: argparse.Namespace) -> int:
    from gwanjong_gateway.server import Gateway, build_gateway
    from gwanjong_gateway.telemetry import spans_only_when_traced

    config, _path = load(args.config)
    os.environ.setdefault("FASTMCP_LOG_LEVEL", "WARNING")
    os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
    os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
    configure_logging(args.log_level)
    spans_only_when_traced(os.environ)
    gateway = Gateway(config)
    server = build_gateway(config, gateway=gateway)

    async def serve() -> None:
        async with anyio.create_task_group() as tg:

            async def stop_on_signal() -> None:
                # On SIGTERM or Ctrl-C, end every platform server this gateway spawned, then
                # leave at once: the stdio reader thread cannot be interrupted politely.
                with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                    async for _ in signals:
                        with anyio.move_on_after(10):
                            await gateway.upstreams.close_all()
                        gateway.close_store()
                        sys.stderr.flush()
                        os._exit(0)

            tg.start_soon(stop_on_signal)
            if args.transport == "stdio":
                await server.run_stdio_async(show_banner=False)
            else:
                await server.run_http_async(
                    host="127.0.0.1",
                    port=args.port,
                    show_banner=False,
                    host_origin_protection="auto",
                )
            tg.cancel_scope.cancel()

    anyio.run(serve)
    if args.transport == "stdio":
        # The stdin reader thread may still be blocked in read(); the children are closed
        # already, so leave without waiting for it.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    return 0


def _history(args: argparse.Namespace) -> int:
    from gwanjong_gateway.history import print_history

    config, _ = load(args.config)
    return print_history(
        config, platform=args.platform, status=args.status, limit=args.limit, as_json=args.json
    )


def _sandbox(args: argparse.Namespace) -> int:
    try:
        from gwanjong_sandbox.__main__ import main as sandbox_main
    except ModuleNotFoundError:
        print(
            "gwanjong: the sandbox is not installed; run `uv sync` in the repository.",
            file=sys.stderr,
        )
        return 2
    sandbox_main(["--port", str(args.port)])
    return 0


def _demo(args: argparse.Namespace) -> int:
    from gwanjong_gateway.demo import run_demo

    return run_demo(topic=args.topic, platforms=args.platforms)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="gwanjong",
        description="MCP gateway: scout -> draft -> strike across Dev.to, Bluesky, X and Reddit.",
    )
    p.add_argument(
        "--config",
        help="gateway.toml to use (default: $GWANJONG_CONFIG, ./gateway.toml, ~/.config/gwanjong/gateway.toml)",
    )
    p.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="how to serve (default stdio, what MCP clients launch)",
    )
    p.add_argument(
        "--port", type=int, default=8765, help="HTTP port on 127.0.0.1 (with --transport http)"
    )
    p.add_argument("--log-level", default="WARNING")
    p.set_defaults(run=_serve)
    sub = p.add_subparsers(dest="command")
    s = sub.add_parser("serve", help="serve the gateway (the default)")
    s.set_defaults(run=_serve)
    d = sub.add_parser("demo", help="run scout -> draft -> strike against the local sandbox")
    d.add_argument("--topic", default="MCP gateway design")
    d.add_argument("--platforms", nargs="*", default=None)
    d.set_defaults(run=_demo)
    sb = sub.add_parser("sandbox", help="serve the platform emulators on 127.0.0.1")
    sb.add_argument("--port", type=int, default=8799)
    sb.set_defaults(run=_sandbox)
    h = sub.add_parser("history", help="list recorded strikes")
    h.add_argument("--platform")
    h.add_argument(
        "--status",
        choices=[
            "posted",
            "dry_run",
            "handoff",
            "declined",
            "refused",
            "failed",
            "pending",
            "unknown",
        ],
    )
    h.add_argument("--limit", type=int, default=30)
    h.add_argument("--json", action="store_true")
    h.set_defaults(run=_history)
    return p


def main(argv: list[str] | None = None) -> None:
    args: Any = parser().parse_args(argv)
    try:
        code = args.run(args)
    except ConfigError as exc:
        print(f"gwanjong: config error:\n{exc}", file=sys.stderr)
        code = 2
    sys.exit(code)


if __name__ == "__main__":
    main()
