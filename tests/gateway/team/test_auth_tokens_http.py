"""Team tokens on a real `gwanjong --transport http` process: who gets in, whose state
each caller sees, who is recorded in the audit, and that no token reaches the log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.shared.exceptions import MCPError

from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import config_file, drafted
from tests.gateway.http_gateway import (
    INIT,
    cli,
    client,
    http_gateway,
    initialize,
    initialize_status,
    mcp_headers,
)
from tests.gateway.rows import history
from tests.mcp import approves, call, error_of

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py
TOKENS = {"auth": {"mode": "tokens"}}
#: every platform waited for, however loaded the machine
SLOW = {"call_timeout_s": 20}
KEY = "0b9d7f0e-5b7c-4b1e-9a53-2f1d3c6e8a77"  # one client key both users present


def issue(config: Path, name: str) -> str:
    done = cli(config, "token", "add", name)
    assert done.returncode == 0, done.stderr
    token = done.stdout.strip()
    assert token.startswith("gwj_") and token not in done.stderr
    return token


async def test_no_wrong_or_revoked_token_is_refused_and_writes_nothing(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    config = config_file(tmp_path, ["devto"], tables=TOKENS, settings=SLOW, sandbox=sandbox.url)
    alice, bob = issue(config, "alice"), issue(config, "bob")
    with http_gateway(config) as gw:
        assert await initialize_status(gw.url, None) == 401
        assert await initialize_status(gw.url, "gwj_not-a-token") == 401
        assert (
            await initialize_status(gw.url, alice[:-1] + ("A" if alice[-1] != "A" else "B")) == 401
        )
        assert await initialize_status(gw.url, alice) == 200
        assert await initialize_status(gw.url, bob) == 200
        assert f"gwanjong: serving MCP on {gw.url}" in gw.log()  # says where it listens
        wrong = await initialize(gw.url, "gwj_not-a-token")
        assert wrong.status_code == 401
        said = wrong.json()["error_description"] + wrong.headers["www-authenticate"]
        assert "wrong or revoked" in said and "gwanjong token add" in said
        assert "re-register" not in said
        for token in (None, "gwj_not-a-token"):  # a real MCP client gets no further
            with pytest.raises(MCPError):
                async with client(gw.url, token) as refused:
                    await refused.call_tool("scout", {"topic": "rust"})

        # the CLI (another process) revokes Bob's token while the gateway runs; the next call
        # within a session is refused too: tests/gateway/team/test_team_revocation_http.py
        revoked = cli(config, "token", "revoke", "bob")
        assert revoked.returncode == 0, revoked.stderr
        assert await initialize_status(gw.url, bob) == 401
        assert await initialize_status(gw.url, alice) == 200  # the others keep working
        listed = cli(config, "token", "list", "--json")
        rows = json.loads(listed.stdout)
        assert [(r["name"], r["revoked"] is not None) for r in rows] == [
            ("alice", False),
            ("bob", True),
        ]
        assert alice not in listed.stdout and bob not in listed.stdout
        log = gw.log()
    assert sandbox.writes() == []
    assert history(config.parent / "state") == []
    assert "invalid_token" in log  # the refusals were logged (at DEBUG), without the tokens
    assert alice not in log and bob not in log


async def strike_post(c: Any, topic: str, content: str) -> tuple[str, dict[str, Any]]:
    oid = await drafted(c, topic)
    result = await call(
        c, "strike", opportunity_id=oid, action="post", content=content, title=f"{content} title"
    )
    return oid, result


async def test_each_user_sees_only_their_own_state_and_is_named_in_the_audit(
    sandbox: SandboxControl, tmp_path: Path, mode: str
) -> None:
    config = config_file(tmp_path, ["devto"], tables=TOKENS, settings=SLOW, sandbox=sandbox.url)
    alice, bob = issue(config, "alice"), issue(config, "bob")
    shared_key = {"X-Gwanjong-Session": KEY}
    shown: list[Any] = []  # every result and error the callers saw
    with http_gateway(config, host="0.0.0.0") as gw:  # with tokens: on every interface
        assert await initialize_status(gw.url, None) == 401
        # each approves their own Dev.to article: it waits for a person even in live mode
        async with client(gw.url, alice, mode, shared_key, elicitation_handler=approves) as a:
            oid, posted = await strike_post(a, "rust async cancellation", "Alice's answer")
            assert posted["status"] == "posted", posted
            shown.append(posted)
            alice_session = a.transport.get_session_id()  # type: ignore[attr-defined]
            # Bob presents Alice's client key: he reaches his own, empty bucket.
            async with client(gw.url, bob, mode, shared_key) as b:
                status = await call(b, "status")
                shown.append(status)
                assert "Alice" not in json.dumps(status)
                assert status["state"]["opportunities"]["count"] == 0, status
                message = await error_of(
                    b, "strike", opportunity_id=oid, action="post", content="hijack", title="t"
                )
                assert "draft" in message or "scout" in message, message
                shown.append(message)
            if alice_session is not None:
                # Bob replays Alice's MCP session id with his own token: the session's
                # owner check answers as if it did not exist.
                async with httpx.AsyncClient(timeout=30) as raw:
                    listed = await raw.post(
                        gw.url,
                        content=json.dumps({**INIT, "method": "tools/list", "params": {}}),
                        headers=mcp_headers(bob, alice_session),
                    )
                assert listed.status_code == 404, listed.status_code
        # Alice's state is still there on a new connection (the key, not the session).
        async with client(gw.url, alice, mode, shared_key) as again:
            status = await call(again, "status")
            shown.append(status)
            assert status["state"]["opportunities"]["count"] > 0, status
        async with client(gw.url, bob, mode, elicitation_handler=approves) as b:
            _, posted = await strike_post(b, "rust async cancellation", "Bob's answer")
            assert posted["status"] == "posted", posted
            shown.append(posted)
        log = gw.log()
    rows = history(config.parent / "state")
    by = {r.content.split(" ", 1)[0]: r.principal for r in rows}
    assert by == {"Alice's": "alice", "Bob's": "bob"}, rows
    audit = json.loads(cli(config, "history", "--json").stdout)  # what an operator reads
    assert sorted(r["by"] for r in audit) == ["alice", "bob"]
    assert not [p for r in audit for p in r["policy"] if p.startswith("by=")], audit
    assert len(sandbox.writes()) == 2
    assert alice not in log and bob not in log
    assert alice not in json.dumps(shown) and bob not in json.dumps(shown)
    assert "call_tool" in log  # the calls were logged at DEBUG, without the tokens
