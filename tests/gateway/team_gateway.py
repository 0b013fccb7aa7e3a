"""A team gateway in this process: `[auth] mode = "tokens"` over real streamable HTTP
(uvicorn on loopback, the same middleware and observability `gwanjong --transport http`
adds), fake platforms behind it, and a token for each of alice, bob and carol (the
auditor)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastmcp import Client

from gwanjong_gateway.config import GatewayConfig, parse
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.observe.attach import attach
from gwanjong_gateway.server import build_gateway
from gwanjong_gateway.team.access_tokens import store_for
from gwanjong_gateway.team.auth import build_auth, http_middleware
from tests.fakes.platform import FakePlatform
from tests.gateway.helpers import config_text, patient_gateway
from tests.gateway.http_gateway import client, serve_app

USERS = ("alice", "bob", "carol")
AUTH = {"auth": {"mode": "tokens", "auditors": ["carol"]}}


@dataclass
class Team:
    url: str
    config: GatewayConfig
    path: Path  # the gateway.toml the CLI reads
    tokens: dict[str, str]
    gateway: Gateway

    def client(self, user: str, mode: str = "auto") -> Client[Any]:
        return client(self.url, self.tokens[user], mode)


@contextlib.asynccontextmanager
async def team_gateway(
    state_dir: Path,
    *fakes: FakePlatform,
    writes: str = "live",
    recheck_s: float | None = None,
    tables: Mapping[str, Mapping[str, Any]] | None = None,
    wall: Callable[[], float] = time.time,
    settings: Mapping[str, Any] | None = None,
) -> AsyncIterator[Team]:
    """``tables``: more of gateway.toml than `[auth]` (which it keeps); ``settings``: more
    of its `[gateway]`."""
    names = [f.profile.name for f in fakes]
    text = config_text(state_dir, names, writes, settings, tables={**(tables or {}), **AUTH})
    path = state_dir / "gateway.toml"
    path.write_text(text, encoding="utf-8")
    config = parse(text)
    tokens = {user: store_for(config.state_dir).add(user) for user in USERS}
    transports = {f.profile.name: f.server() for f in fakes}
    gw = patient_gateway(config, {}, transports, wall=wall)
    auth = build_auth(config)
    mcp = build_gateway(config, gateway=gw, auth=auth)
    observed = attach(mcp, gw, config, auth, "http")
    async with observed.running(), serve_app(mcp, http_middleware(config, auth, recheck_s)) as url:
        yield Team(url, config, path, tokens, gw)
