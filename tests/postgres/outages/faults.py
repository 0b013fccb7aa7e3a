"""Three ways for the test PostgreSQL (`scripts/pg`) to fail, each applied and lifted by the
test at a moment it chooses:

- ``Stopped``: `pg_ctl stop -m immediate` (every connection cut, nothing answers), then
  started again on the same port (as `nobody` when root, as scripts/pg runs it);
- ``Frozen``: the postmaster and every backend SIGSTOPped (connections stay open, nothing
  answers), then SIGCONTinued;
- ``Slow``: a TCP proxy on 127.0.0.1 between the gateway and PostgreSQL that delays every
  chunk each way (the gateway's URL points at the proxy); lifting flushes what it holds.
"""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit, urlunsplit

import anyio
import anyio.abc
import pytest

from tests.e2e.procs import descendants

#: the most the proxy holds one chunk (a lifted fault lets it go at once)
MAX_DELAY_S = 10.0


def pg_dir() -> Path:
    found = os.environ.get("GWANJONG_PG_DIR", "")
    if not found:
        pytest.fail("GWANJONG_PG_DIR is not set: start the server with scripts/pg", pytrace=False)
    return Path(found)


def server_pids() -> list[int]:
    """The postmaster and what it started (the backends), from postmaster.pid and /proc."""
    data = pg_dir() / "data"  # scripts/pg: initdb -D $dir/data
    text = (data / "postmaster.pid").read_text()
    if not text.strip():
        pytest.fail("postmaster.pid is empty", pytrace=False)
    postmaster = int(text.split()[0])
    return [postmaster, *descendants(postmaster)]


@contextmanager
def frozen() -> Iterator[None]:
    """The postmaster and every backend stopped; always continued after."""
    pids = server_pids()
    try:
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        yield
    finally:
        for pid in pids:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


class Fault(Protocol):
    name: str

    async def apply(self) -> None: ...

    async def lift(self) -> None: ...


def _as_server_user() -> list[str]:
    return ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []


class Stopped:
    """`pg_ctl stop -m immediate`, then start on the same port and options as scripts/pg."""

    name = "stopped"

    def __init__(self, server_url: str) -> None:
        self.port = urlsplit(server_url).port
        self.dir = pg_dir()
        self.down = False

    async def apply(self) -> None:
        data = str(self.dir / "data")
        await anyio.run_process(
            [*_as_server_user(), "pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"]
        )
        self.down = True

    async def lift(self) -> None:
        if not self.down:
            return
        options = f"-h 127.0.0.1 -p {self.port} -k {self.dir} -c fsync=off -c max_connections=200"
        data, log = str(self.dir / "data"), str(self.dir / "server.log")
        start = ["pg_ctl", "-D", data, "-l", log, "-w", "-t", "120", "-o", options, "start"]
        await anyio.run_process([*_as_server_user(), *start])
        self.down = False


class Frozen:
    name = "frozen"

    def __init__(self) -> None:
        self.pids: list[int] = []

    async def apply(self) -> None:
        self.pids = server_pids()
        for pid in self.pids:
            os.kill(pid, signal.SIGSTOP)

    async def lift(self) -> None:
        pids, self.pids = self.pids, []
        for pid in pids:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


class Slow:
    """Delays each chunk through the proxy by ``delay_s`` while applied."""

    name = "slow"

    def __init__(self, proxy: SlowProxy, delay_s: float) -> None:
        self.proxy = proxy
        self.delay_s = delay_s

    async def apply(self) -> None:
        self.proxy.slow(self.delay_s)

    async def lift(self) -> None:
        self.proxy.fast()


class SlowProxy:
    """A TCP proxy on 127.0.0.1 to ``upstream`` (host, port); `url` is the same database
    through it. Every chunk waits ``delay`` (at most MAX_DELAY_S, cut short by `fast`)
    before it is passed on, in order, each way. Its connections end with the context."""

    def __init__(self, upstream_url: str) -> None:
        parts = urlsplit(upstream_url)
        self._upstream = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self._parts = parts
        self.port = 0
        self.delay = 0.0
        self._fast = anyio.Event()

    @property
    def url(self) -> str:
        netloc = self._parts.netloc.rsplit("@", 1)
        user = netloc[0] + "@" if len(netloc) == 2 else ""
        return urlunsplit(self._parts._replace(netloc=f"{user}127.0.0.1:{self.port}"))

    def slow(self, delay_s: float) -> None:
        self.delay = min(delay_s, MAX_DELAY_S)
        self._fast = anyio.Event()

    def fast(self) -> None:
        self.delay = 0.0
        self._fast.set()

    async def _pump(
        self, source: anyio.abc.ByteStream, sink: anyio.abc.ByteStream, done: anyio.Event
    ) -> None:
        try:
            async for chunk in source:
                if self.delay:
                    with anyio.move_on_after(self.delay):
                        await self._fast.wait()
                await sink.send(chunk)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass
        finally:
            done.set()

    async def _serve(self, client: anyio.abc.SocketStream) -> None:
        async with client:
            try:
                server = await anyio.connect_tcp(*self._upstream)
            except OSError:
                return
            async with server, anyio.create_task_group() as tg:
                done = anyio.Event()
                tg.start_soon(self._pump, client, server, done)
                tg.start_soon(self._pump, server, client, done)
                await done.wait()  # one side closed: end both
                tg.cancel_scope.cancel()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[SlowProxy]:
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
        self.port = listener.extra(anyio.abc.SocketAttribute.local_port)
        async with listener, anyio.create_task_group() as tg:
            tg.start_soon(listener.serve, self._serve)
            try:
                yield self
            finally:
                self.fast()
                tg.cancel_scope.cancel()
