"""A real `gwanjong --transport http` process for the auth tests, and clients for it."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import uvicorn
from fastmcp import Client, FastMCP
from fastmcp.client.transports import StreamableHttpTransport

from tests.mcp import until

PY = sys.executable
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"},
    },
}


ANNOUNCED = re.compile(r"serving MCP on http://\S+:(\d+)/mcp")


def announced_port(log: Path, process: subprocess.Popen[bytes], seconds: float = 120) -> int:
    """The port a gateway started with ``--port 0`` bound, from the line it writes to its
    stderr (``log``): no port guessed in advance that another test could take first."""
    deadline = time.monotonic() + seconds  # generous: the CPU is shared
    while True:
        text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        found = ANNOUNCED.search(text)
        if found:
            return int(found.group(1))
        if process.poll() is not None:
            raise AssertionError(f"gateway exited {process.returncode}:\n{text}")
        if time.monotonic() > deadline:
            raise AssertionError(f"gateway did not announce its port:\n{text}")
        time.sleep(0.05)


def stderr_file(folder: Path) -> Path:
    """A new file for one gateway's stderr (two gateways on one config each get theirs)."""
    for n in itertools.count():
        path = folder / f"gateway-{n}.stderr"
        with contextlib.suppress(FileExistsError):
            path.touch(exist_ok=False)
            return path
    raise AssertionError("unreachable")


def free_port() -> int:
    """A port nothing listens on (for tests that need a refused connection)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cli(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, "-m", "gwanjong_gateway", "--config", str(config), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@dataclass
class RunningGateway:
    url: str
    stderr: Path
    process: subprocess.Popen[bytes]

    def log(self) -> str:
        return self.stderr.read_text(encoding="utf-8", errors="replace")


@contextlib.contextmanager
def http_gateway(
    config: Path, log_level: str = "DEBUG", host: str = "127.0.0.1"
) -> Iterator[RunningGateway]:
    """Start the gateway over HTTP on a free loopback port (its own pick, ``--port 0``);
    stderr goes to a file."""
    stderr = stderr_file(config.parent)
    with stderr.open("wb") as err:
        process = subprocess.Popen(
            [
                *(PY, "-m", "gwanjong_gateway", "--config", str(config)),
                *("--transport", "http", "--host", host, "--port", "0"),
                *("--log-level", log_level),
            ],
            stdout=subprocess.DEVNULL,
            stderr=err,
            env={**os.environ, "FASTMCP_LOG_LEVEL": log_level},
        )
    try:
        port = announced_port(stderr, process)
        running = RunningGateway(f"http://127.0.0.1:{port}/mcp", stderr, process)
        deadline = time.monotonic() + 120  # generous: the CPU is shared
        while True:
            if process.poll() is not None:
                raise AssertionError(f"gateway exited {process.returncode}:\n{running.log()}")
            with contextlib.suppress(httpx.HTTPError):
                httpx.get(running.url, timeout=2)
                break  # any answer (401) means it is listening
            if time.monotonic() > deadline:
                raise AssertionError(f"gateway did not listen:\n{running.log()}")
            time.sleep(0.1)
        yield running
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def mcp_headers(token: str | None, session: str | None = None) -> dict[str, str]:
    """The headers of a raw MCP request with this bearer token (in ``session``, if given)."""
    sent = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    if session is not None:
        sent |= {"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"}
    return sent


async def initialize(
    url: str, token: str | None, headers: dict[str, str] | None = None
) -> httpx.Response:
    """The answer to a bare MCP initialize request with this bearer token."""
    async with httpx.AsyncClient(timeout=30) as http:
        sent = {**mcp_headers(token), **(headers or {})}
        return await http.post(url, content=json.dumps(INIT), headers=sent)


async def initialize_status(
    url: str, token: str | None, headers: dict[str, str] | None = None
) -> int:
    """The HTTP status of a bare MCP initialize request with this bearer token."""
    return (await initialize(url, token, headers)).status_code


def client(
    url: str,
    token: str | None,
    mode: str = "auto",
    headers: dict[str, str] | None = None,
    **more: Any,
) -> Client[Any]:
    """``more``: the Client's own options (an `elicitation_handler`: a person in the client)."""
    transport = StreamableHttpTransport(url, headers=headers, auth=token)
    return Client(transport, mode=mode, timeout=60, **more)  # type: ignore[arg-type]


@contextlib.asynccontextmanager
async def serve_asgi(app: Any) -> AsyncIterator[str]:
    """Serve the ASGI ``app`` in-process on a free loopback port; yield its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    async with anyio.create_task_group() as group:
        group.start_soon(server.serve, [sock])
        await until(lambda: server.started, 60, every=0.02)  # uvicorn has a flag, no event
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True
    sock.close()


@contextlib.asynccontextmanager
async def serve_app(mcp: FastMCP[Any], middleware: list[Any] | None = None) -> AsyncIterator[str]:
    """Serve `mcp` in-process over streamable HTTP on a free loopback port; yield its URL.
    ``middleware``: the HTTP app's extra middleware, as `gwanjong --transport http` adds."""
    app = mcp.http_app(path="/mcp", host_origin_protection="auto", middleware=middleware)
    async with serve_asgi(app) as base:
        yield f"{base}/mcp"
