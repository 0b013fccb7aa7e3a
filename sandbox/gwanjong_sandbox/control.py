"""Start the sandbox as a process and drive its control API (tests, demo, benchmarks)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx


class SandboxControl:
    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self._http = httpx.Client(base_url=self.url, timeout=10)

    def ids(self, platform: str) -> dict[str, str]:
        return self._get(f"/_sandbox/ids/{platform}")

    def env(self, platform: str) -> dict[str, str]:
        """Env vars that point `platform`'s server at this sandbox."""
        return self._get(f"/_sandbox/env/{platform}")

    def fault(self, platform: str, kind: str = "status", **fields: Any) -> None:
        response = self._http.post(
            "/_sandbox/faults", json={"platform": platform, "kind": kind, **fields}
        )
        response.raise_for_status()

    def clear_faults(self) -> None:
        self._http.delete("/_sandbox/faults").raise_for_status()

    def writes(self, platform: str | None = None) -> list[dict[str, Any]]:
        return self._get("/_sandbox/writes", params={"platform": platform} if platform else None)

    def requests(self) -> dict[str, int]:
        return self._get("/_sandbox/requests")

    def request_paths(self) -> dict[str, int]:
        """Request counts per "platform METHOD path"."""
        return self._get("/_sandbox/requests/paths")

    def add_post(self, thread: dict[str, Any]) -> dict[str, str | None]:
        """Add a thread to every platform until the next reset; its id per platform."""
        response = self._http.post("/_sandbox/posts", json=thread, timeout=60)
        response.raise_for_status()
        return response.json()["ids"]

    def flood_inbox(
        self, summons: int, noise: int = 0, *, noise_last: bool = False, hours_ago: float = 0
    ) -> dict[str, Any]:
        """Flood every platform's inbox until the next reset: ``summons`` summons (texts
        returned oldest first, with the thread's id per platform) mixed with ``noise``
        items that summon nobody."""
        response = self._http.post(
            "/_sandbox/inbox",
            json={
                "summons": summons,
                "noise": noise,
                "noise_last": noise_last,
                "hours_ago": hours_ago,
            },
            timeout=60,
        )
        response.raise_for_status()
        return response.json()

    def hosts(self) -> dict[str, int]:
        return self._get("/_sandbox/hosts")

    def reset(self) -> None:
        self._http.post("/_sandbox/reset").raise_for_status()

    def health(self) -> dict[str, Any]:
        return self._get("/_sandbox/health")

    def close(self) -> None:
        self._http.close()

    def _get(self, path: str, params: dict[str, str] | None = None) -> Any:
        response = self._http.get(path, params=params)
        response.raise_for_status()
        return response.json()


@contextmanager
def start_sandbox(port: int = 0, startup_timeout: float = 30.0) -> Iterator[SandboxControl]:
    """Run ``python -m gwanjong_sandbox`` and yield a control client; stop it afterwards."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "gwanjong_sandbox", "--port", str(port), "--until-stdin-closes"],
        stdin=subprocess.PIPE,  # ours until we exit, however we exit: then it stops too
        stdout=subprocess.PIPE,
        stderr=None,
        text=True,
    )
    try:
        deadline = time.monotonic() + startup_timeout
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        if not line.startswith("SANDBOX_URL="):
            raise RuntimeError(f"sandbox did not start (exit code {proc.poll()}): {line!r}")
        control = SandboxControl(line.split("=", 1)[1])
        while True:
            try:
                control.health()
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        try:
            yield control
        finally:
            control.close()
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
