"""A person approves at a real terminal what a confirm-mode gateway holds.

The real gateway over stdio, the real reddit server and the sandbox; `gwanjong review
approve` is the real console script under a real pty, where the test types as a person
would. Each case ends with exactly one write in the sandbox's write log and an audit row
naming the terminal: a client without elicitation, an auto-declining client, two
approvers racing, and the approving process killed between its claim and the write."""

from __future__ import annotations

import getpass
import os
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult

from gwanjong_gateway.rules.approvals import Approval, ApprovalStatus, Channel
from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_sandbox.control import SandboxControl
from tests.e2e.strikes import history, live_config, scout_draft, strike
from tests.e2e.strikes import server_timeout as server_timeout_of
from tests.e2e.test_chain import gateway
from tests.gateway.approval_clients import approval_row
from tests.mcp import call, until
from tests.platforms import needs
from tests.terminal import PtyCommand

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.e2e,
    pytest.mark.stdio,
    pytest.mark.skipif(sys.platform == "win32", reason="a pty is a POSIX terminal"),
]
GWANJONG = str(Path(sys.executable).with_name("gwanjong"))
TEXT = "Guards around each await fixed it for us."
# A dialog declined faster than 60 s was declined by the client, not read by a person:
# generous, so a loaded machine never turns an instant decline into a person's "no".
EXTRA = {"review": {"min_read_s": 60}, "safety": {"settle_window_s": 20}}


def configure(tmp: Path, sandbox: SandboxControl, server_timeout: int | None = None) -> Path:
    waits = server_timeout_of(sandbox, "reddit", server_timeout) if server_timeout else None
    settings = {"call_timeout_s": 30}
    return live_config(
        tmp, sandbox, ["reddit"], "confirm", settings=settings, tables=EXTRA, others=waits
    )


def approval(tmp: Path, approval_id: int) -> Approval:
    return approval_row(tmp / "state", approval_id)


async def pending(client: Client[Any]) -> tuple[str, int]:
    """A comment waiting for a person: its opportunity and approval."""
    oid = await scout_draft(client, "reddit", "rust async cancellation", "Rust async")
    answer = await strike(client, oid, "comment", TEXT)
    assert answer.get("status") == "pending_approval", answer
    return oid, int(answer["approval"]["id"])


def approve_at_a_terminal(config: Path, approval_id: int, *more: str) -> PtyCommand:
    """`gwanjong review approve` (with ``more`` arguments) under a pty."""
    argv = [GWANJONG, "review", "approve", str(approval_id), *more, "--config", str(config)]
    return PtyCommand(argv, env=dict(os.environ))


async def approved_by_a_person(config: Path, approval_id: int) -> str:
    """Run `review approve` at a pty, type approve; what the screen showed."""
    with approve_at_a_terminal(config, approval_id) as cmd:
        await cmd.wait_for("Type approve")
        assert TEXT in cmd.screen()  # the exact text was shown before the question
        cmd.type("approve\n")
        code = await cmd.exit_code()
        assert code == 0, (cmd.screen(), cmd.errors())
        return cmd.screen()


def audited(tmp: Path, approval_id: int) -> None:
    a = approval(tmp, approval_id)
    assert a.status is ApprovalStatus.APPROVED
    assert (a.channel, a.decided_by) == (Channel.TERMINAL, getpass.getuser())
    assert a.record is not None


async def test_no_elicitation_then_approved_at_the_terminal(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("reddit")
    config = configure(tmp_path, sandbox)
    async with Client(gateway(config), timeout=90) as client:
        _oid, approval_id = await pending(client)
        assert sandbox.writes("reddit") == []
        # the gateway process is running meanwhile: the terminal makes the write itself
        screen = await approved_by_a_person(config, approval_id)
    assert "Posted: http" in screen
    [written] = sandbox.writes("reddit")
    assert TEXT in str(written)
    audited(tmp_path, approval_id)


async def test_an_auto_declining_client_leaves_it_pending(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("reddit")
    config = configure(tmp_path, sandbox)
    asked: list[str] = []

    async def decline_at_once(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        asked.append(message)
        return ElicitResult(action="decline")

    async with Client(gateway(config), timeout=90, elicitation_handler=decline_at_once) as client:
        _oid, approval_id = await pending(client)
    assert asked and TEXT in asked[0]
    assert approval(tmp_path, approval_id).status is ApprovalStatus.PENDING
    assert sandbox.writes("reddit") == []
    # no gateway process runs now: the terminal makes the write through the same chain
    await approved_by_a_person(config, approval_id)
    assert len(sandbox.writes("reddit")) == 1
    audited(tmp_path, approval_id)


async def test_two_approvers_racing_write_once(sandbox: SandboxControl, tmp_path: Path) -> None:
    needs("reddit")
    config = configure(tmp_path, sandbox)
    async with Client(gateway(config), timeout=90) as client:
        _oid, approval_id = await pending(client)
    with (
        approve_at_a_terminal(config, approval_id) as one,
        approve_at_a_terminal(config, approval_id) as two,
    ):
        await one.wait_for("Type approve")
        await two.wait_for("Type approve")
        one.type("approve\n")
        two.type("approve\n")
        codes = sorted([await one.exit_code(), await two.exit_code()])
        loser = one if "Posted:" not in one.screen() else two
        assert codes == [0, 1], (one.screen(), one.errors(), two.screen(), two.errors())
        assert loser.errors().startswith("gwanjong review: ")
        assert len(loser.errors().strip().splitlines()) == 1
    assert len(sandbox.writes("reddit")) == 1
    audited(tmp_path, approval_id)


def _comment_row(tmp: Path) -> StrikeStatus | None:
    rows = [r for r in history(tmp) if r.action == "comment"]
    assert len(rows) <= 1, rows
    return rows[0].status if rows else None


def _comment_requests(sandbox: SandboxControl) -> int:
    paths = httpx.get(f"{sandbox.url}/_sandbox/requests/paths", timeout=10).json()
    return sum(n for key, n in paths.items() if key.startswith("reddit POST") and "comment" in key)


async def test_killed_between_approval_and_write_then_restarted(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("reddit")
    # the server waits up to 60 s: only the kill ends the approving process
    config = configure(tmp_path, sandbox, server_timeout=60)
    async with Client(gateway(config), timeout=90) as client:
        _oid, approval_id = await pending(client)
    before = _comment_requests(sandbox)
    # The sandbox takes the comment now and applies it 5 s later, answer or not.
    sandbox.fault("reddit", kind="slow_write", seconds=5, match="/api/comment")
    with approve_at_a_terminal(config, approval_id) as cmd:
        await cmd.wait_for("Type approve")
        cmd.type("approve\n")
        # claimed, journalled and sent: the request reached the platform. Kill it now.
        await until(lambda: _comment_requests(sandbox) > before, seconds=120, every=0.05)
        cmd.kill()
        assert cmd.proc is not None and cmd.proc.returncode < 0  # killed, not finished
        assert "Posted:" not in cmd.screen()
    # The approval was consumed with the claim: it can never be approved again.
    audited(tmp_path, approval_id)
    # A gateway starts: the write journal puts the killed write back as unsure and the
    # settle loop reads the platform back until the record says posted.
    async with Client(gateway(config), timeout=90) as client:
        await client.call_tool("status", {})
        await until(lambda: _comment_row(tmp_path) is StrikeStatus.POSTED, seconds=120)
        # the model cannot have it written again: the target is no longer offered
        scouted = await call(client, "scout", topic="rust async", platforms=["reddit"])
        titles = [o["title"] for o in scouted["opportunities"]]
        assert not any("Rust async" in t for t in titles), titles
    assert len(sandbox.writes("reddit")) == 1
    with approve_at_a_terminal(config, approval_id) as again:
        code = await again.exit_code()
        assert code == 1 and "already approved" in again.errors(), again.errors()
    assert len(sandbox.writes("reddit")) == 1
