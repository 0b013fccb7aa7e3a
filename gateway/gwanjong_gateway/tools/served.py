"""What every tool body works with: the gateway, its settings, and whose records the
current request may read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.record.readers import Reader
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.untrusted import quote


@dataclass(frozen=True)
class Served:
    gw: Gateway
    config: GatewayConfig
    #: whose records this request reads (team mode: the caller's)
    reader: Callable[[], Reader]

    def known(self, platforms: list[str] | str | None) -> list[str]:
        """The enabled platforms a call names (all of them for none), de-duplicated: one
        platform named 300 times is one platform's requests, not 300. An unknown one is
        refused."""
        names = self.gw.upstreams.names()
        if not platforms:
            return names
        wanted = [platforms] if isinstance(platforms, str) else platforms
        if not all(p.strip() for p in wanted):  # else it would search nothing, quietly
            raise PlatformError(
                ErrorKind.INVALID_INPUT,
                f"An empty platform name: name enabled ones ({', '.join(names) or 'none'}), "
                "or leave platforms out for all of them.",
            )
        wanted = list(dict.fromkeys(p.strip().lower() for p in wanted))
        unknown = [quote(p, 40) for p in wanted if p not in self.gw.upstreams.by_name]
        if unknown:
            raise PlatformError(
                ErrorKind.INVALID_INPUT,
                f"Unknown or disabled platform(s): {', '.join(unknown[:5])}. Enabled: {', '.join(names) or 'none'}.",
            )
        return wanted
