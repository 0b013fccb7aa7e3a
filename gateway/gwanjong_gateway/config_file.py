"""Writing gateway.toml: the one place that does, for `gwanjong init`, the demo, the tests
and the benchmarks. A file is checked as the gateway would load it before it is written.

`dumps` is a small TOML writer for the values a gateway.toml holds: strings (and paths,
written with forward slashes), booleans, integers, floats, arrays, and tables (a mapping:
a `[header]` section at the top level or under another table, an inline `{ }` inside an
array). Every string is a basic string with TOML's escapes, so any text reads back as
written; what TOML cannot hold (None, a lone surrogate) is refused, never guessed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path, PurePath
from typing import Any, cast

from gwanjong_gateway.config import GatewayConfig, parse

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _string(text: str) -> str:
    out: list[str] = []
    for ch in text:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20 or code == 0x7F:  # other control characters are not allowed raw
            out.append(f"\\u{code:04X}")
        elif 0xD800 <= code <= 0xDFFF:
            raise ValueError(f"cannot write a lone surrogate (U+{code:04X}) to TOML")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _key(key: object) -> str:
    if not isinstance(key, str):
        raise TypeError(f"a TOML key must be text, not {type(key).__name__}")
    return key if _BARE_KEY.fullmatch(key) else _string(key)


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return repr(value)  # 1.5, 1e+20, inf, -inf: all TOML floats
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, PurePath):
        return _string(value.as_posix())
    if isinstance(value, list | tuple):
        items = cast("list[object] | tuple[object, ...]", value)
        return "[" + ", ".join(_value(v) for v in items) + "]"
    if isinstance(value, Mapping):
        table = cast("Mapping[object, object]", value)
        pairs = ", ".join(f"{_key(k)} = {_value(v)}" for k, v in table.items())
        return "{ " + pairs + " }" if pairs else "{}"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def _table(path: list[str], table: Mapping[str, Any], out: list[str]) -> None:
    """The plain keys of ``table`` under its header, then each sub-table as its own."""
    plain = [(k, v) for k, v in table.items() if not isinstance(v, Mapping)]
    subtables = [k for k, v in table.items() if isinstance(v, Mapping)]
    if path and (plain or not subtables):  # a table of tables alone needs no header
        if out:
            out.append("")
        out.append("[" + ".".join(_key(k) for k in path) + "]")
    out += [f"{_key(k)} = {_value(v)}" for k, v in plain]
    for key in subtables:
        _table([*path, key], table[key], out)


def dumps(doc: Mapping[str, Any]) -> str:
    """``doc`` as TOML text that `tomllib.loads` reads back equal (paths as text)."""
    out: list[str] = []
    _table([], doc, out)
    return "\n".join(out) + "\n"


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
