"""Writing gateway.toml: the one place that does, for `gwanjong init`, the demo, the tests
and the benchmarks. A file is checked as the gateway would load it before it is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gwanjong_gateway.config import GatewayConfig, parse


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str | Path):
        return json.dumps(
            str(value) if isinstance(value, str) else value.as_posix(), ensure_ascii=False
        )
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def render(gateway: dict[str, Any], platforms: dict[str, dict[str, Any]]) -> str:
    """gateway.toml text for these settings: the demo, the tests and the benchmarks write
    throw-away configs pointing the servers at the sandbox."""
    lines = ["[gateway]", *(f"{k} = {_toml(v)}" for k, v in gateway.items()), ""]
    for name, table in platforms.items():
        lines += [f"[platforms.{name}]", *(f"{k} = {_toml(v)}" for k, v in table.items()), ""]
    return "\n".join(lines)


def write_config(path: Path, text: str, source: str = "gateway.toml") -> GatewayConfig:
    """Write `text` to `path` (parents made), never a file the gateway would refuse to load:
    a bad one raises ConfigError and nothing is written."""
    config = parse(text, source)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return config
