"""`gwanjong-sandbox --port 0`: serve the emulators on 127.0.0.1 and print the URL."""

from __future__ import annotations

import argparse
import contextlib
import logging
import socket
import sys
import threading

import uvicorn

from gwanjong_sandbox.app import SandboxApp


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="gwanjong-sandbox",
        description="Local emulator of the Dev.to, Bluesky, X, Reddit, Mastodon and Hacker News APIs (loopback only).",
    )
    parser.add_argument("--port", type=int, default=8799, help="0 picks a free port")
    parser.add_argument("--log-level", default="warning")
    parser.add_argument(
        "--until-stdin-closes",
        action="store_true",
        help="exit once stdin ends: whoever started us (with a pipe) is gone, even if killed",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper())

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit this: without it, a response written in two parts waits
    # for the client's delayed ACK, about 40 ms per request on loopback.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind(("127.0.0.1", args.port))
    except OSError as exc:
        sys.exit(
            f"gwanjong-sandbox: cannot listen on 127.0.0.1:{args.port} ({exc.strerror}); "
            "try --port 0"
        )
    port = sock.getsockname()[1]
    # The first stdout line is the contract with whoever started us (tests, demo).
    print(f"SANDBOX_URL=http://127.0.0.1:{port}", flush=True)  # noqa: T201
    # Idle connections stay open a minute, as the CDNs in front of the platforms keep them:
    # uvicorn's default 5 s equals httpx's own keep-alive expiry, and a write sent on a
    # connection the server closes at that instant is an answer lost, a race no platform runs.
    config = uvicorn.Config(
        SandboxApp(),
        log_level=args.log_level,
        access_log=False,
        lifespan="off",
        timeout_keep_alive=65,
    )
    server = uvicorn.Server(config)
    if args.until_stdin_closes:
        threading.Thread(target=_stop_at_end_of_stdin, args=(server,), daemon=True).start()
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[sock])


def _stop_at_end_of_stdin(server: uvicorn.Server) -> None:
    # A test run killed or interrupted cannot stop us itself; its end of the pipe closes.
    while sys.stdin.buffer.read(4096):
        pass
    server.should_exit = True


if __name__ == "__main__":
    main()
