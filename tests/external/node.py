"""Driving a stock TS SDK client (tests/external/js/client.mjs) from pytest, one call at a
time over its stdin/stdout (JSON lines). The client keeps the SDK's own output validation
on; a result it rejects comes back as {"ok": false, "error": {"code": -32602, ...}}."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.external.tools import NODE22, NODE_DIR, need

SCRIPT = Path(__file__).parent / "js" / "client.mjs"
PACKAGES = {"v1": "@modelcontextprotocol/sdk", "v2": "@modelcontextprotocol/client"}
MODERN = "2026-07-28"
#: the stock clients the strict tests run: (sdk, the revision the client is pinned to)
CLIENTS = {"ts-v1": ("v1", None), "ts-v2-modern": ("v2", MODERN)}
# Only catches a hang: a healthy answer comes in well under a second.
DEADLINE_S = 120.0


class NodeClient:
    """``with NodeClient("v1", server) as c: c.call("scout", {...})``. ``server`` is
    ``{"command", "args", "env"}`` (stdio) or ``{"url"}`` (streamable HTTP); ``pin`` pins
    the TS v2 client to a protocol revision (the modern era)."""

    def __init__(self, sdk: str, server: dict[str, Any], *, pin: str | None = None) -> None:
        need(NODE_DIR / PACKAGES[sdk] / "package.json")
        config = {"sdk": sdk, "pin": pin, "server": server, "modules": str(NODE_DIR)}
        self.proc = subprocess.Popen(
            [str(need(NODE22)), str(SCRIPT), json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: list[str] = []
        self.readers = [
            threading.Thread(target=self._read, daemon=True),
            threading.Thread(target=self._drain, daemon=True),
        ]
        for reader in self.readers:
            reader.start()
        self.ready = self._next()
        if not self.ready.get("ready"):
            self.close()
            raise AssertionError(f"the {sdk} client did not connect: {self.ready} {self.log()}")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)

    def log(self) -> str:
        return "".join(self.stderr)[-3000:]

    def _next(self) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=DEADLINE_S)
        except queue.Empty:
            raise AssertionError(f"the Node client hung; stderr: {self.log()}") from None
        if line is None:
            raise AssertionError(f"the Node client exited; stderr: {self.log()}")
        return json.loads(line)

    def send(self, command: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        return self._next()

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """The answer line: ok/result/raw, or ok=false with the SDK's error."""
        return self.send({"op": "call", "name": name, "arguments": arguments or {}})

    def list(self, *, refresh: bool = False) -> dict[str, Any]:
        return self.send({"op": "list", "refresh": refresh})

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for reader in self.readers:  # both pipes end with the process
            reader.join(timeout=10)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()

    def __enter__(self) -> NodeClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def accepted(answer: dict[str, Any]) -> dict[str, Any]:
    """The result the SDK accepted (no -32602 from its output validation), or fail."""
    assert answer.get("ok") is True, answer.get("error")
    return answer["result"]


def error_data(answer: dict[str, Any]) -> dict[str, Any]:
    """An error result the SDK accepted, read as data from structuredContent."""
    result = accepted(answer)
    assert result.get("isError") is True, result
    error = result["structuredContent"]["error"]
    assert set(error) >= {"kind", "message"}, error
    text = " ".join(c.get("text", "") for c in result.get("content", []))
    assert text.startswith(error["kind"]), (text, error)  # the same error, as text
    return error
