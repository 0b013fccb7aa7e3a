"""Replicas for real: `deploy/replicas` starts three gateway processes (team mode, one
PostgreSQL record, one config and state dir) behind HAProxy, round-robin with no
stickiness, and these tests drive them with the MCP client over HTTP in both protocol eras:

- one user's scout, draft and strike each land on a different replica, and work;
- two users at once stay apart: neither can draft or strike the other's handle;
- the replica that served draft is killed before strike: strike succeeds on another,
  and the sandbox and the record hold exactly one write.

Which replica served a request is the `X-Gwanjong-Replica` response header, set by
HAProxy (the gateway knows nothing of it; nothing of it reaches the model). Needs
HAProxy (`apt-get install -y haproxy`; skipped without it, failed under CI) and a real
PostgreSQL (`pg_url`, tests/conftest.py)."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from gwanjong_sandbox.control import SandboxControl
from tests.e2e.procs import alive
from tests.gateway.helpers import config_file, opportunity_for
from tests.gateway.http_gateway import cli, free_port
from tests.mcp import call, error_of, until
from tests.platforms import SPECS

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.stdio, pytest.mark.postgres]
REPLICAS = 3
ERAS = ["legacy", "auto"]  # 2025-11-25 (handshake) and 2026-07-28 (stateless)
# Reddit comments are real writes through the API (Dev.to's are hand-offs); two posts by
# one author, so the cool-down between two comments to them is off.
TARGETS = {
    "alice": ("rust async cancellation", "Rust async"),
    "bob": ("tokio loom testing", "loom"),
}

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "replicas"
INSTALL = "apt-get install -y haproxy"


def need_haproxy() -> None:
    """Skip without HAProxy, saying how to install it; fail where it is required (CI)."""
    if shutil.which("haproxy") is not None:
        return
    why = f"haproxy is not installed ({INSTALL})"
    if os.environ.get("CI") or os.environ.get("GWANJONG_REQUIRE_PG"):
        pytest.fail(f"the replica tests need HAProxy but {why}; .ci/run installs it", pytrace=False)
    pytest.skip(why)


def add_token(config: Path, user: str) -> str:
    done = cli(config, "token", "add", user)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@dataclass
class Cluster:
    url: str
    dir: Path
    pids: dict[str, int]  # r1, r2, …, haproxy

    def log(self, name: str) -> str:
        return (self.dir / f"{name}.log").read_text(encoding="utf-8", errors="replace")

    def logs(self) -> str:
        return "\n".join(self.log(n) for n in self.pids)


def _run(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GWANJONG": f"{sys.executable} -m gwanjong_gateway"}
    return subprocess.run(
        ["bash", str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=env,
    )


@contextlib.contextmanager
def cluster(config: Path, run_dir: Path, replicas: int = 3) -> Iterator[Cluster]:
    port = free_port()
    started = _run(
        "start",
        *("--config", str(config), "--replicas", str(replicas)),
        *("--port", str(port), "--dir", str(run_dir)),
    )
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        pids = {}
        for line in (run_dir / "pids").read_text().splitlines():
            name, pid, _port = line.split()
            pids[name] = int(pid)
        url = (run_dir / "url").read_text().strip()
        assert url == f"http://127.0.0.1:{port}/mcp", started.stdout
        assert url in started.stdout and all(str(p) in started.stdout for p in pids.values())
        yield Cluster(url, run_dir, pids)
    finally:
        stopped = _run("stop", "--dir", str(run_dir))
        assert stopped.returncode == 0, stopped.stderr


@dataclass
class Served:
    """(JSON-RPC method, tool name or None, replica) per HTTP request, in order."""

    calls: list[tuple[str, str | None, str]] = field(default_factory=list)

    async def hook(self, response: httpx2.Response) -> None:
        try:
            body = json.loads(response.request.content or b"{}")
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            return
        params = body.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        replica = response.headers.get("x-gwanjong-replica", "")
        self.calls.append((str(body.get("method", "")), name, replica))

    def last(self) -> str:
        return self.calls[-1][2]

    def of(self, tool: str) -> list[str]:
        return [r for m, n, r in self.calls if m == "tools/call" and n == tool]


def client(url: str, token: str, mode: str, served: Served) -> Client[Any]:
    def factory(
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
        **kwargs: Any,
    ) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(
            headers=headers,
            timeout=timeout or httpx2.Timeout(30.0, read=300.0),
            auth=auth,
            event_hooks={"response": [served.hook]},
            **kwargs,
        )

    transport = StreamableHttpTransport(url, auth=token, httpx_client_factory=factory)
    return Client(transport, mode=mode, timeout=90)  # type: ignore[arg-type]


class Steer:
    """Round-robin sends each request to the replica after the last one's, so a spare
    call (`status`) moves the next request along. The order is learned, not assumed."""

    def __init__(self, c: Client[Any], served: Served, replicas: int) -> None:
        self.c, self.served, self.replicas = c, served, replicas
        self.after: dict[str, str] = {}

    async def learn(self) -> None:
        await self.c.list_tools()  # the client fetches the schemas once; not in between later
        seen = []
        for _ in range(self.replicas + 1):
            await self.c.call_tool("status", {})
            seen.append(self.served.last())
        self.after = dict(itertools.pairwise(seen))
        assert len(set(seen)) == self.replicas, seen  # every replica serves

    async def next_to_one_of(self, wanted: set[str]) -> None:
        for _ in range(2 * self.replicas):
            if self.after[self.served.last()] in wanted:
                return
            await self.c.call_tool("status", {})
        raise AssertionError(f"round-robin never reached {wanted}: {self.served.calls}")


# -- the workflow ------------------------------------------------------------------------


async def scout(c: Client[Any], user: str) -> str:
    topic, title = TARGETS[user]
    scouted = await call(c, "scout", topic=topic, platforms=["reddit"], limit=10)
    return opportunity_for(scouted, "reddit", title)


def comment(handle: str, user: str) -> dict[str, str]:
    return {"opportunity_id": handle, "action": "comment", "content": f"{user}: guard each await."}


async def posted(c: Client[Any], handle: str, user: str) -> dict[str, Any]:
    done = await call(c, "strike", **comment(handle, user))
    assert done["status"] == "posted", done
    return done


async def refused_as_unknown(c: Client[Any], tool: str, handle: str, user: str = "") -> str:
    """Another principal's handle reaches nothing: an error of a guided kind, no write."""
    args = comment(handle, user) if tool == "strike" else {"opportunity_id": handle}
    text = await error_of(c, tool, **args)
    assert text.split(":")[0].strip() in ("not_found", "needs_previous_step", "invalid_input"), text
    return text


def history(config: Path) -> list[dict[str, Any]]:
    done = cli(config, "history", "--json")
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def setup(
    tmp: Path, sandbox: SandboxControl, pg: str, users: tuple[str, ...]
) -> tuple[Path, dict[str, str]]:
    need_haproxy()
    if "reddit" not in SPECS:
        pytest.skip("reddit is not in this run (GWANJONG_TEST_PLATFORMS)")
    config = config_file(
        tmp,
        ["reddit"],
        settings={"call_timeout_s": 20},
        tables={
            "auth": {"mode": "tokens"},
            "store": {"url": pg},
            "safety": {"author_cooldown_days": 0},
        },
        sandbox=sandbox.url,
    )
    return config, {u: add_token(config, u) for u in users}


# -- the tests ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ERAS)
async def test_scout_draft_and_strike_each_on_another_replica(
    sandbox: SandboxControl,
    tmp_path: Path,
    pg_url: str,
    mode: str,
) -> None:
    config, tokens = setup(tmp_path, sandbox, pg_url, ("alice",))
    served = Served()
    with cluster(config, tmp_path / "run", REPLICAS) as running:
        async with client(running.url, tokens["alice"], mode, served) as c:
            steer = Steer(c, served, REPLICAS)
            await steer.learn()
            used: set[str] = set()
            handle = await scout(c, "alice")
            used |= set(served.of("scout"))
            await steer.next_to_one_of(set(running.pids) - {"haproxy"} - used)
            await call(c, "draft", opportunity_id=handle)
            used |= set(served.of("draft"))
            await steer.next_to_one_of(set(running.pids) - {"haproxy"} - used)
            done = await posted(c, handle, "alice")
        by_tool = [served.of(t) for t in ("scout", "draft", "strike")]
        logs = running.logs()
    assert all(len(r) == 1 for r in by_tool), served.calls
    assert len({r[0] for r in by_tool}) == 3, served.calls  # three replicas, one call each
    assert len(sandbox.writes("reddit")) == 1
    rows = history(config)
    assert [(r["status"], r["by"]) for r in rows] == [("posted", "alice")], rows
    assert rows[0]["record"] == done["record"]
    assert tokens["alice"] not in logs


async def test_two_users_at_once_stay_apart(
    sandbox: SandboxControl,
    tmp_path: Path,
    pg_url: str,
) -> None:
    config, tokens = setup(tmp_path, sandbox, pg_url, ("alice", "bob"))
    handles: dict[str, str] = {}
    with cluster(config, tmp_path / "run", REPLICAS) as running:
        sessions = {
            u: client(running.url, tokens[u], mode, Served())
            for u, mode in (("alice", "auto"), ("bob", "legacy"))
        }
        async with sessions["alice"] as alice, sessions["bob"] as bob:
            users = {"alice": alice, "bob": bob}

            async def scout_one(user: str) -> None:
                handles[user] = await scout(users[user], user)

            async with anyio.create_task_group() as tg:
                for user in users:
                    tg.start_soon(scout_one, user)
            # Bob presents Alice's handle, and the other way round: nothing of hers.
            stolen = await refused_as_unknown(bob, "draft", handles["alice"])
            assert "ferris" not in stolen.lower()  # no detail of her target
            await refused_as_unknown(alice, "strike", handles["bob"], "alice")

            async def own(user: str) -> None:
                await call(users[user], "draft", opportunity_id=handles[user])
                await posted(users[user], handles[user], user)

            async with anyio.create_task_group() as tg:
                for user in users:
                    tg.start_soon(own, user)
            # Bob's strike on Alice's handle, after she drafted it, still reaches nothing.
            await refused_as_unknown(bob, "strike", handles["alice"], "bob")
        logs = running.logs()
    assert len(sandbox.writes("reddit")) == 2
    rows = history(config)
    mine = {(r["by"], r["content"].split(":")[0]) for r in rows if r["status"] == "posted"}
    assert mine == {("alice", "alice"), ("bob", "bob")}, rows
    assert len(rows) == 2, rows  # the refused attempts wrote nothing
    assert tokens["alice"] not in logs and tokens["bob"] not in logs


@pytest.mark.parametrize("mode", ERAS)
async def test_the_replica_that_drafted_dies_before_strike(
    sandbox: SandboxControl,
    tmp_path: Path,
    pg_url: str,
    mode: str,
) -> None:
    config, tokens = setup(tmp_path, sandbox, pg_url, ("alice",))
    served = Served()
    with cluster(config, tmp_path / "run", REPLICAS) as running:
        async with client(running.url, tokens["alice"], mode, served) as c:
            handle = await scout(c, "alice")
            await call(c, "draft", opportunity_id=handle)
            [drafter] = served.of("draft")
            victim = running.pids[drafter]
            os.kill(victim, signal.SIGKILL)
            await until(lambda: not alive(victim), every=0.05)
            done = await posted(c, handle, "alice")
            [striker] = served.of("strike")
    assert striker not in ("", drafter), served.calls
    writes = sandbox.writes("reddit")
    assert len(writes) == 1, writes
    rows = history(config)
    assert [(r["record"], r["status"]) for r in rows] == [(done["record"], "posted")], rows
