"""`gwanjong-twitter`: the X/Twitter MCP server over stdio (or `--transport http --port N`)."""

from __future__ import annotations

from gwanjong_shared.kit.cli import serve_main
from gwanjong_twitter.server import Settings, build_server


def main(argv: list[str] | None = None) -> None:
    serve_main("gwanjong-twitter", "X/Twitter", Settings, build_server, argv)


if __name__ == "__main__":
    main()
