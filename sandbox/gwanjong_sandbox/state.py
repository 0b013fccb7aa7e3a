"""What the sandbox remembers between requests: faults to inject and writes received."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Fault:
    """One scripted misbehaviour for one platform.

    kind: ``status`` (answer with ``status`` in the platform's error format),
    ``hang`` (sleep ``seconds`` before answering normally), ``hang_after`` (do the work,
    then sleep: the write happens but the client times out), or ``latency`` (add
    ``ms`` to every request until reset; ``count`` is ignored).
    """

    platform: str
    kind: str = "status"
    status: int = 500
    retry_after: int | None = None
    seconds: float = 30.0
    ms: float = 0.0
    count: int = 1
    match: str = ""  # only requests whose path contains this


@dataclass
class Write:
    id: int
    platform: str
    action: str
    target: str | None
    data: dict[str, Any]
    at: float


@dataclass
class SandboxState:
    faults: list[Fault] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)
    requests: dict[str, int] = field(default_factory=dict)
    #: every Host header received (emulator and control API alike), with counts
    hosts: dict[str, int] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def record_write(self, platform: str, action: str, target: str | None, **data: Any) -> Write:
        write = Write(next(self._ids), platform, action, target, data, time.time())
        self.writes.append(write)
        return write

    def latency_ms(self, platform: str) -> float:
        return sum(f.ms for f in self.faults if f.platform == platform and f.kind == "latency")

    def take_fault(self, platform: str, path: str) -> Fault | None:
        for fault in self.faults:
            if fault.platform != platform or fault.kind == "latency":
                continue
            if fault.match and fault.match not in path:
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
        self.hosts.clear()
