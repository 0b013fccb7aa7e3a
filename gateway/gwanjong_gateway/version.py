"""gwanjong's own version (serverInfo.version and `gwanjong --version`)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def gwanjong_version() -> str:
    try:
        return version("gwanjong")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"
