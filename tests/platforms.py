"""How the contract suite starts each platform server against the sandbox.

A platform joins the suite by adding one PlatformSpec to SPECS; the tests themselves do not
change. ``env`` is what the server process gets: the same dict builds the in-memory server
(settings read from it) and the stdio process.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

from fastmcp import FastMCP
from fastmcp.client.transports import StdioTransport

from gwanjong_shared.contract import Allowed


@dataclass(frozen=True)
class PlatformSpec:
    name: str
    env: Callable[[str], dict[str, str]]
    #: the rule capabilities() must report, per action
    rules: dict[str, Allowed]
    #: secrets that must never appear in any result or error
    secrets: tuple[str, ...]
    #: env that makes every request fail authentication
    bad_auth_env: dict[str, str] = field(default_factory=dict)
    #: extra variants of the server to run the suite against (name -> env overrides)
    variants: dict[str, dict[str, str]] = field(default_factory=dict)
    #: a word that search must match to the "rust-async" thread
    search_word: str = "cancellation"

    @property
    def module(self) -> str:
        return f"gwanjong_{self.name}"

    def build(self, sandbox_url: str, **overrides: str) -> FastMCP[Any]:
        """The server in-process, configured from the same env a process would get."""
        server_mod = importlib.import_module(f"{self.module}.server")
        env = {**self.env(sandbox_url), **overrides}
        with mock.patch.dict(os.environ, env, clear=False):
            settings = server_mod.Settings(_env_file=None)
        return server_mod.build_server(settings)

    def stdio(self, sandbox_url: str, **overrides: str) -> StdioTransport:
        env = {**self.env(sandbox_url), **overrides, "FASTMCP_LOG_LEVEL": "WARNING"}
        return StdioTransport(command=sys.executable, args=["-m", self.module], env=env)


COMMON = {"TIMEOUT_S": "2"}


def _prefixed(prefix: str, values: dict[str, str]) -> dict[str, str]:
    return {f"{prefix}{k}": v for k, v in {**COMMON, **values}.items()}


DEVTO = PlatformSpec(
    name="devto",
    env=lambda url: _prefixed(
        "DEVTO_",
        {"BASE_URL": url, "API_KEY": "sandbox-devto-key", "READS_PER_MINUTE": "6000", "WRITE_INTERVAL_S": "1"},
    ),
    rules={"write_post": "auto", "write_comment": "human", "upvote": "human"},
    secrets=("sandbox-devto-key",),
    bad_auth_env={"DEVTO_API_KEY": "wrong-key"},
)

SPECS: dict[str, PlatformSpec] = {spec.name: spec for spec in [DEVTO]}
