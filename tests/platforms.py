"""How the contract suite starts each platform server against the sandbox.

A platform joins the suite with one module in tests/specs/ that defines ``SPEC``; the
tests themselves do not change. ``env(url)`` is what the server process gets (``values``
under the platform's prefix): the same dict builds the in-memory server (settings read
from it) and the stdio process.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from fastmcp import FastMCP
from fastmcp.client.transports import StdioTransport

from gwanjong_shared.contract import Allowed


@dataclass(frozen=True)
class PlatformSpec:
    name: str
    #: the server's settings for a sandbox URL, without the ``<NAME>_`` prefix
    values: Callable[[str], dict[str, str]]
    #: the rule capabilities() must report, per action
    rules: dict[str, Allowed]
    #: secrets that must never appear in any result or error
    secrets: tuple[str, ...]
    #: env that makes writes fail authentication
    bad_auth_env: dict[str, str] = field(default_factory=dict)
    #: extra configurations of the server to run the suite against (name -> env overrides)
    variants: dict[str, dict[str, str]] = field(default_factory=dict)
    #: a word that search must match to the "rust-async" thread
    search_word: str = "cancellation"
    #: our account in the sandbox, as capabilities names it
    account: str = "gwanjong_bot"

    @property
    def module(self) -> str:
        return f"gwanjong_{self.name}"

    def env(self, sandbox_url: str) -> dict[str, str]:
        """Env vars for the server (``TIMEOUT_S`` unless given; a ``HOLD_FILE`` of its own,
        so no test holds another's writes, nor any the person's)."""
        hold = str(HOLDS / f"{uuid.uuid4().hex}.db")
        values = {"TIMEOUT_S": TIMEOUT_S, "HOLD_FILE": hold, **self.values(sandbox_url)}
        return {f"{self.name.upper()}_{k}": v for k, v in values.items()}

    def settings(self, sandbox_url: str, **overrides: str) -> Any:
        """The server's Settings, read from the same env a process would get."""
        server_mod = importlib.import_module(f"{self.module}.server")
        env = {**self.env(sandbox_url), **overrides}
        with mock.patch.dict(os.environ, env, clear=False):
            return server_mod.Settings(_env_file=None)

    def build(self, sandbox_url: str, **overrides: str) -> FastMCP[Any]:
        """The server in-process, configured from the same env a process would get."""
        server_mod = importlib.import_module(f"{self.module}.server")
        return server_mod.build_server(self.settings(sandbox_url, **overrides))

    def timeouts(self, seconds: float) -> dict[str, str]:
        """Env that bounds each of the server's requests by ``seconds`` (its ``*TIMEOUT_S``):
        the short bound of a test whose subject is a slow or late platform."""
        return {k: f"{seconds:g}" for k in self.env("http://unused") if k.endswith("TIMEOUT_S")}

    def stdio(self, sandbox_url: str, **overrides: str) -> StdioTransport:
        env = {**self.env(sandbox_url), **overrides, "FASTMCP_LOG_LEVEL": "WARNING"}
        return StdioTransport(command=sys.executable, args=["-m", self.module], env=env)


#: where each server a test builds keeps its write hold (kit/hold.py), one file per build
HOLDS = Path(tempfile.mkdtemp(prefix="gwanjong-holds-"))
#: Each request's bound in a test: one a loaded machine never reaches, so only a test whose
#: subject is a slow platform meets it, and that test gives its own (`PlatformSpec.timeouts`).
TIMEOUT_S = "30"


def _load() -> dict[str, PlatformSpec]:
    """Every spec in tests/specs; GWANJONG_TEST_PLATFORMS=devto,reddit narrows a local run."""
    only = {p for p in os.environ.get("GWANJONG_TEST_PLATFORMS", "").split(",") if p}
    specs: dict[str, PlatformSpec] = {}
    for info in sorted(
        pkgutil.iter_modules([str(Path(__file__).parent / "specs")]), key=lambda i: i.name
    ):
        if only and info.name not in only:
            continue
        spec: PlatformSpec = importlib.import_module(f"tests.specs.{info.name}").SPEC
        specs[spec.name] = spec
    return specs


SPECS: dict[str, PlatformSpec] = _load()


def needs(*platforms: str) -> None:
    """Skip a test whose platforms are not in this run (GWANJONG_TEST_PLATFORMS)."""
    missing = [p for p in platforms if p not in SPECS]
    if missing:
        pytest.skip(f"platform(s) not in this run: {missing} (GWANJONG_TEST_PLATFORMS)")
