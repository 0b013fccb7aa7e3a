"""What a user would build instead of the gateway, run as stdio MCP servers for the benchmarks:

    python -m bench.baselines mount ENVS.json     # FastMCP mount of the bundled servers' proxies
    python -m bench.baselines proxy devto ENVS.json   # FastMCP's proxy of one server

ENVS.json maps each platform to the env that points its server at the sandbox.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from fastmcp import FastMCP
from fastmcp.client.transports import StdioTransport
from fastmcp.server import create_proxy

QUIET = {
    "FASTMCP_LOG_LEVEL": "WARNING",
    "FASTMCP_CHECK_FOR_UPDATES": "off",
    "FASTMCP_SHOW_SERVER_BANNER": "false",
}


def backend(platform: str, env: dict[str, str]) -> StdioTransport:
    return StdioTransport(
        command=sys.executable, args=["-m", f"gwanjong_{platform}"], env={**env, **QUIET}
    )


def mount(envs: dict[str, dict[str, str]]) -> FastMCP[Any]:
    server: FastMCP[Any] = FastMCP("mount")
    for platform, env in envs.items():
        server.mount(create_proxy(backend(platform, env)), namespace=platform)
    return server


def main() -> None:
    kind, *rest = sys.argv[1:]
    envs: dict[str, dict[str, str]] = json.loads(Path(rest[-1]).read_text())
    server = mount(envs) if kind == "mount" else create_proxy(backend(rest[0], envs[rest[0]]))
    server.run(show_banner=False)


if __name__ == "__main__":
    main()
