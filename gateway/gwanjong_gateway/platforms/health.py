"""The second layer of health: the platform behind a running server.

A server process can be up while its platform is unreachable, refuses our credentials or
throttles us. Every call's outcome is an observation; `status` probes with the cheap
`capabilities` call only when the last observation is older than a TTL.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from gwanjong_gateway.rules.approvals import iso
from gwanjong_shared.contract import Capabilities, CredentialState
from gwanjong_shared.contract.errors import ErrorKind

PROBE_TTL_S = 60.0


class PlatformState(StrEnum):
    UNKNOWN = "unknown"
    REACHABLE = "reachable"
    NOT_CONFIGURED = "not configured"
    AUTH_FAILED = "auth failed"
    RATE_LIMITED = "rate limited"
    UNREACHABLE = "unreachable"


# Kinds that prove the platform answered (the request itself was the problem).
_ANSWERED = {ErrorKind.NOT_FOUND, ErrorKind.INVALID_INPUT, ErrorKind.NOT_SUPPORTED}


@dataclass
class PlatformHealth:
    clock: Callable[[], float] = field(default=time.time)
    state: PlatformState = PlatformState.UNKNOWN
    detail: str = ""
    seen_at: float | None = None
    until: float | None = None

    def observe(
        self, kind: ErrorKind | None, message: str = "", retry_after: float | None = None
    ) -> None:
        """One answer from the server about its platform (None: success)."""
        now = self.clock()
        self.seen_at, self.until, self.detail = now, None, ""
        if kind is None or kind in _ANSWERED:
            self.state = PlatformState.REACHABLE
        elif kind is ErrorKind.AUTH:
            self.state, self.detail = PlatformState.AUTH_FAILED, message[:200]
        elif kind is ErrorKind.RATE_LIMITED:
            self.state = PlatformState.RATE_LIMITED
            self.until = now + (retry_after if retry_after is not None else 60.0)
        else:
            self.state, self.detail = PlatformState.UNREACHABLE, message[:200]

    def observe_capabilities(self, caps: Capabilities) -> None:
        if caps.credentials_state is CredentialState.REFUSED:
            self.observe(ErrorKind.AUTH, f"{caps.platform} refused our credentials")
        elif caps.reachable is False:
            self.observe(ErrorKind.UNAVAILABLE, "the platform did not answer the probe")
        elif not caps.configured:
            self.observe(None)
            self.state, self.detail = PlatformState.NOT_CONFIGURED, "no credentials set"
        else:
            self.observe(None)

    def stale(self, ttl_s: float = PROBE_TTL_S) -> bool:
        return self.seen_at is None or self.clock() - self.seen_at > ttl_s

    def view(self) -> dict[str, Any]:
        out: dict[str, Any] = {"state": self.state.value}
        if self.state is PlatformState.RATE_LIMITED and self.until is not None:
            if self.clock() >= self.until:
                out["state"] = PlatformState.UNKNOWN.value  # the window has passed
            else:
                out["until"] = iso(self.until)
        if self.detail:
            out["detail"] = self.detail
        if self.seen_at is not None:
            out["checked_at"] = iso(self.seen_at)
        return out
