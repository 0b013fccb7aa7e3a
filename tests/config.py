"""The one config builder of the suite: a test's gateway.toml, by the product's writer."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gwanjong_gateway.config.file import render
from tests.platforms import SPECS


def config_text(
    state_dir: Path,
    platforms: list[str],
    writes: str | None = "live",
    settings: Mapping[str, Any] | None = None,
    tables: Mapping[str, Mapping[str, Any]] | None = None,
    platform: Mapping[str, Any] | None = None,
    others: Mapping[str, Mapping[str, Any]] | None = None,
    sandbox: str | None = None,
) -> str:
    """gateway.toml for a test, by the product's writer (the one config builder of the
    suite): ``settings`` go in [gateway], ``tables`` are [safety], [store], [auth] …, each
    of ``platforms`` gets ``platform`` (default: no minimum interval) and, given the
    ``sandbox`` URL, the env pointing its server there; ``others`` add to (or are more)
    platforms' tables."""
    # a [gateway] in tables would replace this one, state_dir and all: settings add to it
    assert "gateway" not in (tables or {}), "give [gateway] keys as settings="
    each = {"min_interval_s": 0} if platform is None else platform
    gateway: dict[str, Any] = {
        **({"writes": writes} if writes else {}),  # None: the product's default
        "state_dir": state_dir,
        "call_timeout_s": 8,
        **(settings or {}),
    }
    # a test not about patience waits for every platform, however loaded the machine
    gateway.setdefault("answer_within_s", gateway["call_timeout_s"])
    tables_of: dict[str, dict[str, Any]] = {}
    for name in platforms:
        env = {"env": SPECS[name].env(sandbox)} if sandbox is not None else {}
        tables_of[name] = {**env, **each}
    for name, table in (others or {}).items():
        tables_of[name] = {**tables_of.get(name, {}), **table}
    return render(gateway, tables_of, tables)


def config_file(folder: Path, platforms: list[str], *args: Any, **kw: Any) -> Path:
    """`config_text` (state in ``folder``/state) written to ``folder``/gateway.toml."""
    path = folder / "gateway.toml"
    path.write_text(config_text(folder / "state", platforms, *args, **kw), encoding="utf-8")
    return path
