"""Every enabled platform's Upstream (upstream.py), and the environment each one gets."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import anyio

from gwanjong_gateway.config import GatewayConfig, PlatformConfig
from gwanjong_gateway.config.load import expand, read_dotenv
from gwanjong_gateway.platforms import childlog
from gwanjong_gateway.platforms.breaker import Clock
from gwanjong_gateway.platforms.outcome import Outcome
from gwanjong_gateway.platforms.upstream import QUIET, Upstream
from gwanjong_gateway.platforms.watched import Watched
from gwanjong_gateway.rules.profiles import Profiles
from gwanjong_shared.contract.errors import ErrorKind
from gwanjong_shared.kit.tracing import ENDPOINT_ENV, SERVICE_ENV

SEP = "__"  # namespaced tool names: devto__search
# The network setup every HTTP client honours (httpx, aiohttp, requests): a server
# behind a corporate proxy or CA must see the same as the gateway.
_NETWORK = ("HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "ALL_PROXY")
PASSTHROUGH = frozenset(
    [
        *_NETWORK,
        *(v.lower() for v in _NETWORK),
        *("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"),
    ]
)


def platform_env(
    name: str,
    platform: PlatformConfig,
    secrets: dict[str, str],
    environ: dict[str, str],
    others: tuple[str, ...] = (),
) -> dict[str, str]:
    """Only this platform's variables: its prefix from the environment and the saved
    `.env` (not those of ``others`` whose name extends it: site_work's are not site's),
    the proxy and CA variables, then the `env` table of gateway.toml (with
    `${VAR}` expanded)."""
    prefix = f"{name.upper()}_"
    theirs = tuple(p for o in others if (p := f"{o.upper()}_") != prefix and p.startswith(prefix))
    merged = {**secrets, **environ}
    env = {k: v for k, v in merged.items() if k.startswith(prefix) and not k.startswith(theirs)}
    env.update({k: v for k, v in environ.items() if k in PASSTHROUGH})
    env.update({k: expand(v, merged) for k, v in platform.env.items()})
    env.update(QUIET)
    return env


#: a collector's credentials, read by the OTLP exporter: a spawned server needs them too
_OTLP_HEADERS = ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS")


def tracing_env(
    config: GatewayConfig, name: str, environ: dict[str, str] | None = None
) -> dict[str, str]:
    """A platform server's share of `[telemetry]`: its spans go to the gateway's collector, with
    the collector's headers (masked in its stderr like any credential)."""
    telemetry = config.telemetry
    if not telemetry.otlp_endpoint:
        return {}
    given = environ or {}
    return {
        ENDPOINT_ENV: telemetry.otlp_endpoint,
        SERVICE_ENV: f"{telemetry.service_name}-{name}",
        "FASTMCP_TELEMETRY_MODE": "native",
        **{k: given[k] for k in _OTLP_HEADERS if given.get(k)},
    }


@dataclass(frozen=True)
class Reservation:
    """What a `Gate` reserved for one call (the spend budget: its row in the spend ledger
    and the most the call may cost), handed back to the gate with the call's outcome."""

    platform: str
    tool: str
    row: int
    micros: int


class Gate(Protocol):
    """Asked before each platform call, told its outcome after (usage/spend.py: the daily
    spend budget)."""

    async def admit(
        self, platform: str, tool: str, arguments: dict[str, Any]
    ) -> Outcome | Reservation | None:
        """A failure refuses the call (nothing is sent); a reservation goes on with it;
        None: nothing to settle (a free call)."""
        ...

    async def settle(self, reservation: Reservation, outcome: Outcome | None) -> None:
        """The call's outcome (None: it was never made, the reservation is let go)."""
        ...


class Upstreams:
    """Every enabled platform's Upstream, started concurrently."""

    def __init__(
        self,
        config: GatewayConfig,
        environ: dict[str, str] | None = None,
        transports: dict[str, Any] | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        self.config = config
        #: what each platform says about itself (guide, footer, setup, handles)
        self.profiles = Profiles()
        self.by_name: dict[str, Upstream] = {
            name: Upstream(
                name,
                platform,
                self._env(name, platform, environ),
                connect_timeout_s=config.gateway.start_timeout_s,
                transport_override=(transports or {}).get(name),
                log_file=childlog.log_path(config.state_dir, name),
                clock=clock,
            )
            for name, platform in config.enabled().items()
        }
        #: start-up and the settle loop, run in the background by the server's lifespan
        self.background = Watched("background start-up and settle loop")
        #: told of every platform call (usage figures): (platform, tool, outcome, seconds)
        self.observer: Callable[[str, str, Outcome, float], None] | None = None
        #: asked before every platform call (the spend budget); None: every call goes
        self.gate: Gate | None = None

    def on_up(self, callback: Callable[[str], None]) -> None:
        for upstream in self.by_name.values():
            upstream.on_up = callback

    def names(self) -> list[str]:
        return list(self.by_name)

    def get(self, name: str) -> Upstream | None:
        return self.by_name.get(name)

    async def start_all(self, only: set[str] | None = None) -> None:
        """Start these platforms now (all when `only` is None) rather than on first use."""
        async with anyio.create_task_group() as tg:
            for name, upstream in self.by_name.items():
                if only is None or name in only:
                    tg.start_soon(upstream.ensure)

    async def close_all(self) -> None:
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as tg:
                for upstream in self.by_name.values():
                    tg.start_soon(upstream.close)

    async def call(
        self,
        platform: str,
        tool: str,
        arguments: dict[str, Any],
        timeout_s: float | None = None,
        prepaid: Reservation | None = None,
    ) -> Outcome:
        """``prepaid``: the gate's reservation made for this call beforehand (a strike
        reserves before it claims), so the gate is not asked again."""
        upstream = self.by_name.get(platform)
        if upstream is None:
            return Outcome.failure(
                ErrorKind.INVALID_INPUT,
                f"platform {platform!r} is not enabled; enabled: {', '.join(self.by_name) or 'none'}",
            )
        held = prepaid
        if held is None and self.gate is not None:
            admitted = await self.gate.admit(platform, tool, arguments)
            if isinstance(admitted, Outcome):
                return admitted  # refused before the call: nothing was sent
            held = admitted
        started = time.perf_counter()
        outcome = await upstream.call(
            tool, arguments, timeout_s or self.config.gateway.call_timeout_s
        )
        if held is not None and self.gate is not None:
            # A call cancelled mid-way never gets here: its reservation stands (it may
            # have been served).
            await self.gate.settle(held, outcome)
        if self.observer is not None:
            self.observer(platform, tool, outcome, time.perf_counter() - started)
        return outcome

    def health(self) -> dict[str, dict[str, Any]]:
        return {name: u.view() for name, u in self.by_name.items()}

    async def reload_env(self, name: str, environ: dict[str, str] | None = None) -> Upstream:
        """After `setup save`: rebuild this platform's env from the saved `.env`; its server
        restarts with it on the next call."""
        upstream = self.by_name[name]
        upstream.env = self._env(name, upstream.platform, environ)
        self.profiles.forget(name)  # the new credentials may sign in as another account
        await upstream.close()
        return upstream

    def _env(
        self, name: str, platform: PlatformConfig, environ: dict[str, str] | None
    ) -> dict[str, str]:
        env = dict(os.environ if environ is None else environ)
        secrets = read_dotenv(self.config.state_dir / ".env")
        mine = platform_env(name, platform, secrets, env, tuple(self.config.platforms))
        # its write hold (kit/hold.py) with this gateway's state, not the person's default
        # folder: a demo's, a test's or a team's state stays apart
        hold = self.config.state_dir / "holds" / f"{name}.db"
        mine.setdefault(f"{name.upper()}_HOLD_FILE", str(hold))
        return {**mine, **tracing_env(self.config, name, env)}
