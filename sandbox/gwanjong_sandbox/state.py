"""What the sandbox remembers between requests: faults to inject and writes received."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Fault:
    """One scripted misbehaviour for one platform.

    kind: ``status`` (answer with ``status`` in the platform's error format),
    ``hang`` (sleep ``seconds`` before answering normally), ``hang_after`` (do the work,
    then sleep: the write happens but the client times out), ``slow_write`` (wait
    ``seconds``, then do the work even if the client has gone, then answer: a late write
    that still lands), ``latency`` (add ``ms`` to every request until reset; ``count`` is
    ignored), ``lag`` (read-back lag: what is written from now on shows in reads only
    ``seconds`` later, on the sandbox's clock, until reset; ``count`` is ignored),
    ``apply_then_status`` (do the work, then answer ``status``, as a proxy in front of the
    platform does when its answer is lost: the write happened, the client sees a 5xx) or
    ``apply_then_drop`` (do the work, then close the connection without any answer) or
    ``apply_then_cut`` (do the work, send the answer's status, headers and half its body,
    then close the connection) or
    ``headers`` (answer normally, with ``headers`` set on the answer and an empty value
    removing that header: another server's or a proxy's rate-limit headers).
    With ``count=1`` a client that resends the request gets it applied a second time.
    """

    platform: str
    kind: str = "status"
    status: int = 500
    retry_after: int | None = None
    seconds: float = 30.0
    ms: float = 0.0
    count: int = 1
    match: str = ""  # only requests whose path contains this
    method: str = ""  # only requests with this method ("POST"); "": any
    # ``status`` only: send this body as is (a CDN's empty 403, a text/plain 429, an HTML
    # 404) with the platform's own headers for that status; None: the platform's error JSON.
    body: str | None = None
    content_type: str = "text/plain; charset=utf-8"
    headers: dict[str, str] = field(default_factory=lambda: {})  # ``headers`` only


@dataclass
class Write:
    id: int
    platform: str
    action: str
    target: str | None
    data: dict[str, Any]
    at: float


#: Faults that stay until reset instead of being taken by a request.
STANDING = ("latency", "lag")


@dataclass
class SandboxState:
    faults: list[Fault] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)
    requests: dict[str, int] = field(default_factory=dict)
    #: (platform, object id) -> sandbox time from which reads show it (read-back lag)
    hidden: dict[tuple[str, str], float] = field(default_factory=dict)
    clock: Callable[[], float] = time.time
    #: every Host header received (emulator and control API alike), with counts
    hosts: dict[str, int] = field(default_factory=dict)
    #: emulator requests received so far; each request's number is in its scope
    #: ("sandbox.arrival"): what it saw when it came, whatever a fault delays after
    arrived: int = 0
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def now(self) -> float:
        """The sandbox's clock (wall time unless a test injects another)."""
        return self.clock()

    def record_write(self, platform: str, action: str, target: str | None, **data: Any) -> Write:
        now = self.now()
        write = Write(next(self._ids), platform, action, target, data, now)
        self.writes.append(write)
        lag = self.lag_s(platform)
        object_id = data.get("id", data.get("uri"))  # Bluesky's objects are AT URIs
        if lag and object_id is not None:
            self.hidden[(platform, str(object_id))] = now + lag
        return write

    def visible(self, platform: str, object_id: str) -> bool:
        """False while a written object is still inside its read-back lag: every emulator's
        read paths ask this, so the lag is one rule for all platforms."""
        until = self.hidden.get((platform, str(object_id)))
        return until is None or self.now() >= until

    def latency_ms(self, platform: str) -> float:
        return sum(f.ms for f in self.faults if f.platform == platform and f.kind == "latency")

    def lag_s(self, platform: str) -> float:
        return max(
            (f.seconds for f in self.faults if f.platform == platform and f.kind == "lag"),
            default=0.0,
        )

    def take_fault(self, platform: str, path: str, method: str = "GET") -> Fault | None:
        for fault in self.faults:
            if fault.platform != platform or fault.kind in STANDING:
                continue
            if fault.match and fault.match not in path:
                continue
            if fault.method and fault.method.upper() != method.upper():
                continue
            fault.count -= 1
            if fault.count <= 0:
                self.faults.remove(fault)
            return fault
        return None

    def clear(self) -> None:
        self.faults.clear()
        self.writes.clear()
        self.requests.clear()
        self.hidden.clear()
        self.hosts.clear()
