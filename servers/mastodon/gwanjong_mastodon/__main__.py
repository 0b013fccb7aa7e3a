"""`gwanjong-mastodon`: the Mastodon MCP server over stdio (or `--transport http --port N`)."""

from __future__ import annotations

from gwanjong_mastodon.server import Settings, build_server
from gwanjong_shared.kit.cli import serve_main


def main(argv: list[str] | None = None) -> None:
    serve_main("gwanjong-mastodon", "Mastodon", Settings, build_server, argv)


if __name__ == "__main__":
    main()
