"""Stock TS SDK clients drive the gateway with their own output validation on: the TS SDK
v1 (1.32.2) in the 2025-11-25 era and the TS SDK v2 (2.4.0) pinned to 2026-07-28, each
over stdio and over streamable HTTP.

- Every tool's results, successes and failures, are accepted (no -32602) and each failure
  is readable as data from `structuredContent.error`.
- In the 2026-07-28 era the wire carries what that revision requires and what strict hosts
  check (Claude Code drops every tool of a server without them): `resultType` on every
  result, `ttlMs` and `cacheScope` on list results, and the tools in a stable order.
- scout -> draft -> strike (writes = "dry-run", the default) ends in `dry_run` with no
  custom header, in one client and with a new client (a new session, or a new gateway
  process over stdio) for each call: the opportunity id is a server-minted handle.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gwanjong_sandbox.control import SandboxControl
from tests.config import config_file
from tests.external.node import CLIENTS, NodeClient, accepted, error_data
from tests.gateway.http_gateway import http_gateway

pytestmark = pytest.mark.e2e
EXPOSED = "devto__get_post"
TOOLS = [EXPOSED, "draft", "scout", "setup", "status", "strike"]
# Only catches a hang: a platform server starts on first use, slowly on a busy machine.
UP_DEADLINE_S = 300.0

Servers = Callable[[], dict[str, Any]]


def write_config(tmp: Path, sandbox: SandboxControl) -> Path:
    # writes is left out: the default (dry-run) is what a new user runs. One raw platform
    # tool is exposed: it passes the platform's answers (and the gateway's errors) through.
    settings = {"call_timeout_s": 20, "expose": [EXPOSED]}
    return config_file(tmp, ["devto"], None, settings, sandbox=sandbox.url)


@contextlib.contextmanager
def gateway(transport: str, config: Path) -> Iterator[Servers]:
    """How a client reaches the gateway: each call of the yielded function is one client's
    server (over stdio, a new gateway process per client; over HTTP, the one process)."""
    if transport == "stdio":
        args = ["-m", "gwanjong_gateway", "--config", str(config)]
        stdio = {"command": sys.executable, "args": args, "env": {"FASTMCP_LOG_LEVEL": "WARNING"}}
        yield lambda: stdio
        return
    with http_gateway(config, log_level="WARNING") as running:
        yield lambda: {"url": running.url}


def wait_until_up(c: NodeClient) -> None:
    accepted(c.call("setup", {"action": "check", "platform": "devto"}))  # starts it
    deadline = time.monotonic() + UP_DEADLINE_S
    while True:
        answer = accepted(c.call("status"))
        assert answer.get("isError") is not True, answer
        status = answer["structuredContent"]
        if status["platforms"]["devto"]["health"] == "up":
            return
        assert time.monotonic() < deadline, status
        time.sleep(0.2)


def check_modern_wire(answer: dict[str, Any]) -> None:
    """What 2026-07-28 requires on every result, and on list results."""
    assert answer["raw"], "no result seen on the wire"  # else the checks below are vacuous
    for raw in answer["raw"]:
        assert "resultType" in raw, raw
        if "tools" in raw:
            assert isinstance(raw.get("ttlMs"), int), raw
            assert raw.get("cacheScope") in ("public", "private"), raw


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("client", list(CLIENTS))
def test_every_gateway_result_is_accepted(
    client: str, transport: str, sandbox: SandboxControl, tmp_path: Path
) -> None:
    sdk, pin = CLIENTS[client]
    with (
        gateway(transport, write_config(tmp_path, sandbox)) as server,
        NodeClient(sdk, server(), pin=pin) as c,
    ):
        if pin is not None:
            assert c.ready["protocolVersion"] == pin
            check_modern_wire(c.ready)
            assert any("tools" in raw for raw in c.ready["raw"])  # the list was checked
        tools = c.ready["tools"]
        assert sorted(t["name"] for t in tools) == TOOLS
        # (the exposed tool is a placeholder until its server is up: checked below)
        assert all("outputSchema" in t for t in tools if t["name"] != EXPOSED)
        wait_until_up(c)
        failing: list[tuple[str, dict[str, Any]]] = [
            ("setup", {"action": "check", "platform": "no-such-platform"}),
            ("setup", {"action": "nope"}),
            ("scout", {"topic": ""}),
            ("scout", {"topic": "rust", "platforms": ["no-such-platform"]}),
            ("scout", {"topic": "x" * 400}),
            ("draft", {"opportunity_id": "devto-no-such-handle"}),
            ("draft", {}),
            ("strike", {"opportunity_id": "devto-no-such-handle", "action": "comment"}),
            ("strike", {"opportunity_id": "x", "action": "delete_everything"}),
        ]
        for tool, args in failing:
            answer = c.call(tool, args)
            error = error_data(answer)
            assert error["kind"] in ("invalid_input", "needs_previous_step"), (tool, error)
            if pin is not None:
                check_modern_wire(answer)
        good: list[tuple[str, dict[str, Any]]] = [
            ("status", {}),
            ("setup", {"action": "check"}),
            ("setup", {"action": "guide", "platform": "devto"}),
            ("scout", {"topic": "rust async", "platforms": ["devto"]}),
        ]
        for tool, args in good:
            answer = c.call(tool, args)
            result = accepted(answer)
            assert result.get("isError") is not True, (tool, result)
            assert "error" not in result["structuredContent"], (tool, result)
            if pin is not None:
                check_modern_wire(answer)
        if pin is not None:  # the same tools in the same order, every time
            first = c.list(refresh=True)
            second = c.list(refresh=True)
            check_modern_wire(first)
            names = [t["name"] for t in accepted(first)["tools"]]
            assert names == [t["name"] for t in accepted(second)["tools"]]
            # The exposed tool's definition is replaced once its server is up, which moves it
            # to the end of the list; the gateway's own tools keep their order.
            own = [t["name"] for t in tools if t["name"] != EXPOSED]
            assert [n for n in names if n != EXPOSED] == own
        # The exposed tool has the platform server's own schema once that server is up: list
        # again (as a host does on list_changed) so the SDK checks against that schema.
        exposed = {t["name"]: t for t in accepted(c.list(refresh=True))["tools"]}[EXPOSED]
        assert "anyOf" in exposed.get("outputSchema", {}), exposed  # the result, or the error
        post_id = sandbox.ids("devto")["rust-async"]
        post = accepted(c.call(EXPOSED, {"post_id": post_id}))
        assert post.get("isError") is not True and post["structuredContent"]["id"] == post_id
        assert error_data(c.call(EXPOSED, {"post_id": "999999999"}))["kind"] == "not_found"
        assert error_data(c.call(EXPOSED, {"post_id": ""}))["kind"] == "invalid_input"


def strike_dry_run(call: Callable[[str, dict[str, Any]], dict[str, Any]]) -> None:
    scouted = accepted(call("scout", {"topic": "uv workspaces", "platforms": ["devto"]}))
    assert scouted.get("isError") is not True, scouted
    handle = scouted["structuredContent"]["opportunities"][0]["id"]
    drafted = accepted(call("draft", {"opportunity_id": handle}))
    assert drafted.get("isError") is not True, drafted
    args = {"opportunity_id": handle, "action": "post", "title": "T", "content": "Body"}
    struck = accepted(call("strike", args))
    assert struck.get("isError") is not True, struck
    assert struck["structuredContent"]["status"] == "dry_run", struck


WORKFLOWS = {"ts-v1-stdio": ("ts-v1", "stdio"), "ts-v2-modern-http": ("ts-v2-modern", "http")}


@pytest.mark.parametrize("workflow", list(WORKFLOWS))
def test_scout_draft_strike_without_a_custom_header(
    workflow: str, sandbox: SandboxControl, tmp_path: Path
) -> None:
    sdk, pin = CLIENTS[WORKFLOWS[workflow][0]]
    with (
        gateway(WORKFLOWS[workflow][1], write_config(tmp_path, sandbox)) as server,
        NodeClient(sdk, server(), pin=pin) as c,
    ):
        wait_until_up(c)
        strike_dry_run(c.call)
    assert sandbox.writes() == []


@pytest.mark.parametrize("workflow", list(WORKFLOWS))
def test_scout_draft_strike_with_a_new_client_per_call(
    workflow: str, sandbox: SandboxControl, tmp_path: Path
) -> None:
    """As langchain-mcp-adapters' get_tools() does: each call opens its own session (over
    stdio, its own gateway process); the handle carries the workflow between them."""
    sdk, pin = CLIENTS[WORKFLOWS[workflow][0]]
    with gateway(WORKFLOWS[workflow][1], write_config(tmp_path, sandbox)) as server:

        def fresh(tool: str, args: dict[str, Any]) -> dict[str, Any]:
            with NodeClient(sdk, server(), pin=pin) as c:
                if tool == "scout":
                    wait_until_up(c)
                return c.call(tool, args)

        strike_dry_run(fresh)
    assert sandbox.writes() == []
