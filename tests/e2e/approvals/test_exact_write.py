"""One exact write, end to end (issue 34): a Dev.to post waits in a confirm-mode gateway
(a real process over stdio, the real Dev.to server, the sandbox); a person approves it at a
real terminal (`gwanjong review approve --title --tags` under a pty) after seeing the whole
write; the sandbox's write log then holds exactly that title, those tags and the text with
its disclosure footer, and nothing of the post it was drafted from."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from fastmcp import Client

from gwanjong_gateway.rules.approvals import ApprovalStatus
from gwanjong_sandbox.control import SandboxControl
from tests.e2e.approvals.test_approval_clients import confirm_config
from tests.e2e.approvals.test_review_terminal import approve_at_a_terminal
from tests.e2e.strikes import scout_draft, strike
from tests.e2e.test_chain import gateway
from tests.gateway.approval_clients import approval_row

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.e2e,
    pytest.mark.stdio,
    pytest.mark.skipif(sys.platform == "win32", reason="a pty is a POSIX terminal"),
]
FOOTER = (
    "\n\n---\n*Drafted with an AI assistant (gwanjong); a person approved it before it was "
    "published.*"
)


async def test_the_sandbox_receives_exactly_the_approved_title_tags_and_text(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    config = confirm_config(tmp_path, sandbox)
    async with Client(gateway(config), timeout=90) as client:
        oid = await scout_draft(client, "devto", "rust async", "Rust async")
        got = await strike(client, oid, "post", "What cancellation taught us.", "Draft title")
        assert got["status"] == "pending_approval", got
        approval_id = int(got["approval"]["id"])
    assert sandbox.writes("devto") == []
    edit = ("--title", "Cancellation, in practice", "--tags", "rust,async")
    with approve_at_a_terminal(config, approval_id, *edit) as cmd:
        await cmd.wait_for("Type approve")
        screen = cmd.screen()
        # the person saw the whole write before the question
        assert "Title: Cancellation, in practice" in screen and "Tags: rust, async" in screen
        assert "What cancellation taught us." in screen
        assert "also sent: ai_disclosure_level: fully_autonomous" in screen
        cmd.type("approve\n")
        assert await cmd.exit_code() == 0, (cmd.screen(), cmd.errors())
    [written] = [w for w in sandbox.writes("devto") if w["action"] == "write_post"]
    data = written["data"]
    assert data["title"] == "Cancellation, in practice"
    assert data["tags"] == ["rust", "async"]  # nothing of the drafted post's own tags
    assert data["body"] == f"What cancellation taught us.{FOOTER}"
    a = approval_row(tmp_path / "state", approval_id)
    assert a.status is ApprovalStatus.APPROVED and a.edited
    assert a.write.arguments() == {k: data[k] for k in ("title", "body", "tags")}
    assert {k: data[k] for k in a.write.sent_with} == a.write.sent_with  # the rest, as shown
    assert a.digest in screen
