"""Writing gateway.toml (for `gwanjong init`, the demo, tests and benchmarks), checked as the
gateway would load it first. `dumps` is tomlkit's; what TOML cannot hold is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePath
from typing import Any, cast

import tomlkit

from gwanjong_gateway.config import GatewayConfig, parse


def _plain(value: object) -> object:
    """``value`` with every path as its text (``/`` separated): what tomlkit writes."""
    if isinstance(value, PurePath):
        return value.as_posix()
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in cast("Mapping[object, object]", value).items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in cast("list[object] | tuple[object, ...]", value)]
    return value


def dumps(doc: Mapping[str, Any]) -> str:
    """``doc`` as TOML text that `tomllib.loads` reads back equal (paths as text)."""
    text = tomlkit.dumps(cast("Mapping[str, Any]", _plain(doc)))
    text.encode("utf-8")  # a lone surrogate cannot be written: UnicodeEncodeError
    return text


def render(
    gateway: Mapping[str, Any],
    platforms: Mapping[str, Mapping[str, Any]],
    tables: Mapping[str, Mapping[str, Any]] | None = None,
) -> str:
    """gateway.toml text for these settings: `[gateway]`, then ``tables`` (`[safety]`,
    `[store]`, `[auth]` …), then one `[platforms.NAME]` per platform. The demo, the tests
    and the benchmarks write throw-away configs pointing the servers at the sandbox."""
    doc: dict[str, Any] = {"gateway": dict(gateway), **(tables or {})}
    if platforms:
        doc["platforms"] = {name: dict(table) for name, table in platforms.items()}
    return dumps(doc)


def write_config(path: Path, text: str, source: str = "gateway.toml") -> GatewayConfig:
    """Write `text` to `path` (parents made), never a file the gateway would refuse to load:
    a bad one raises ConfigError and nothing is written."""
    config = parse(text, source)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return config
