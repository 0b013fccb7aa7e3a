"""`gwanjong doctor`: start each enabled platform's server as the gateway would and ask it
`capabilities`: does it start, which credentials does it lack (names only, never values),
which `expose`d tools it does not mark read-only. `--offline` skips this (a server with
credentials looks its account up on the platform).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import anyio

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.platforms.client import PlatformClient
from gwanjong_gateway.platforms.expose import writes
from gwanjong_gateway.platforms.upstreams import SEP, Upstreams
from gwanjong_shared.contract import CredentialState
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.contract.visible import line as one_line


class ServerState(StrEnum):
    READY = "ready"  # started and answered, credentials set
    NO_CREDENTIALS = "no credentials"  # started, but its credentials are not all set
    REFUSED = "credentials refused"  # the platform said 401/403 to them
    UNREACHABLE = "platform unreachable"  # started; the platform did not answer
    NOT_STARTED = "not startable"  # the server did not start or answer capabilities


@dataclass
class Probe:
    state: ServerState
    #: its credential variables that are not set (names only)
    missing: list[str] = field(default_factory=list[str])
    account: str | None = None
    why: str = ""
    #: its `expose`d tools that may write (not marked read-only): refused by the gateway
    exposed_writes: list[str] = field(default_factory=list[str])

    def exposed_problems(self) -> list[str]:
        return [
            f"gateway.expose: {name} is not marked read-only by its server, so the gateway "
            "neither lists nor calls it (a write goes through strike): drop it from expose"
            for name in self.exposed_writes
        ]

    def line(self) -> str:
        if self.state is ServerState.NO_CREDENTIALS:
            return f"credentials missing: {', '.join(self.missing) or '(none named)'}"
        if self.state is ServerState.READY:
            return f"ready (account {self.account})" if self.account else "ready"
        return f"{self.state}" + (f": {self.why}" if self.why else "")

    def problem(self, platform: str) -> str | None:
        if self.state is ServerState.READY:
            return None
        if self.state is ServerState.NO_CREDENTIALS:
            return (
                f"platforms.{platform}: credentials missing ({', '.join(self.missing)}): run "
                f"`gwanjong setup {platform}`, or set them in the environment"
            )
        if self.state is ServerState.REFUSED:
            return (
                f"platforms.{platform}: the platform refused the credentials: run "
                f"`gwanjong setup {platform}` with new ones"
            )
        return f"platforms.{platform}: {self.line()}"


async def probe(config: GatewayConfig, timeout_s: float | None = None) -> dict[str, Probe]:
    """Each enabled platform's state; its servers are closed again before this returns."""
    upstreams = Upstreams(config)
    bound = timeout_s or config.gateway.start_timeout_s + config.gateway.call_timeout_s
    found: dict[str, Probe] = {}

    async def one(name: str) -> None:
        found[name] = await _one(upstreams, name, bound)
        upstream = upstreams.get(name)
        if upstream is not None and upstream.tools:  # listed: its annotations are known
            for exposed in config.gateway.expose:
                platform, _, tool = exposed.partition(SEP)
                if (
                    platform == name
                    and tool in upstream.tools
                    and writes(tool, upstream.tools[tool])
                ):
                    found[name].exposed_writes.append(exposed)

    try:
        async with anyio.create_task_group() as tg:
            for name in upstreams.names():
                tg.start_soon(one, name)
    finally:
        await upstreams.close_all()
    return dict(sorted(found.items()))


async def _one(upstreams: Upstreams, name: str, timeout_s: float) -> Probe:
    try:
        caps = await PlatformClient(upstreams, name, timeout_s).capabilities()
    except PlatformError as exc:
        return Probe(ServerState.NOT_STARTED, why=f"{exc.kind}: {one_line(exc.message, 160)}")
    upstream = upstreams.get(name)
    env = upstream.env if upstream is not None else {}
    names = [one_line(n, 64) for n in caps.credentials[:20]]
    if not caps.configured:
        missing = [n for n in names if not env.get(n, "").strip()]
        return Probe(ServerState.NO_CREDENTIALS, missing or names)
    if caps.credentials_state is CredentialState.REFUSED:
        return Probe(ServerState.REFUSED)
    if caps.reachable is False:
        return Probe(ServerState.UNREACHABLE, why="the account lookup got no answer")
    account = one_line(caps.account, 60) if caps.account else None
    return Probe(ServerState.READY, account=account)
