"""`gwanjong doctor`'s "what am I running?": why this config file, which state folder, the
record's database by name (never its password), the versions."""

from __future__ import annotations

import platform
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from urllib.parse import urlsplit

from gwanjong_gateway.config import GatewayConfig


def config_source(path: Path | None, explicit: str | None, environ: Mapping[str, str]) -> str:
    """Why this file is the one in use (config.locate's order)."""
    if path is None:
        return "none found: the defaults (every installed platform, dry-run)"
    where = str(path.absolute())
    if explicit:
        return f"{where} (from --config)"
    if environ.get("GWANJONG_CONFIG"):
        return f"{where} (from $GWANJONG_CONFIG)"
    if not path.is_absolute():
        return f"{where} (./gateway.toml in the current folder)"
    return f"{where} (the user config file)"


def state_source(config: GatewayConfig) -> str:
    return "state_dir in gateway.toml" if config.gateway.state_dir else "the default"


def versions() -> str:
    def of(dist: str) -> str:
        try:
            return version(dist)
        except PackageNotFoundError:
            return "not installed"

    return (
        f"gwanjong {of('gwanjong')}, python {platform.python_version()}, "
        f"mcp {of('mcp')}, fastmcp {of('fastmcp')}"
    )


def database(url: str) -> str:
    """The database name of a PostgreSQL URL (its path), or "" (no user, no password)."""
    try:
        name = urlsplit(url).path.lstrip("/")
    except ValueError:
        return ""
    return name if name and "$" not in name and "/" not in name else ""
