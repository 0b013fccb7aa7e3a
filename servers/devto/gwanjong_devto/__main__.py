"""`gwanjong-devto`: the Dev.to MCP server over stdio (or `--transport http --port N`)."""

from __future__ import annotations

from gwanjong_devto.server import Settings, build_server
from gwanjong_shared.kit.cli import serve_main


def main(argv: list[str] | None = None) -> None:
    serve_main("gwanjong-devto", "Dev.to", Settings, build_server, argv)


if __name__ == "__main__":
    main()
