"""Approvals decided in the client (issue 22), through a real gateway process (stdio and
HTTP), the real Dev.to server and the sandbox: a form dialog that a person accepts in the
handshake era, and a 2026-07-28 client answering the input-required round. Each ends with
exactly one write in the sandbox's write log and an audit naming the channel.

(The other client profiles: no dialog and an auto-declining client, decided from the
terminal, in test_review_terminal.py; URL-only clients and MCP Apps hosts in their own.)"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult

from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import Approval
from gwanjong_sandbox.control import SandboxControl
from tests.e2e.strikes import http_gateway, live_config, scout_draft, session, strike
from tests.e2e.test_chain import gateway

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.stdio]
POST = {"title": "Approved by a person", "content": "Sent once, exactly as approved."}


def confirm_config(tmp: Path, sandbox: SandboxControl) -> Path:
    return live_config(tmp, sandbox, ["devto"], "confirm")


def approvals(tmp: Path) -> list[Approval]:
    with closing(StrikeStore(tmp / "state" / "gwanjong.db")) as store:
        return store.approvals(0, pending=False)


@contextlib.contextmanager
def transport(kind: str, cfg: Path) -> Iterator[Any]:
    if kind == "stdio":
        yield gateway(cfg)
    else:
        with http_gateway(cfg) as url:
            yield session(url)  # the stateless era has no MCP session: a workflow one


@pytest.mark.parametrize("kind", ["stdio", "http"])
@pytest.mark.parametrize("mode", ["legacy", "auto"])  # auto: the 2026-07-28 era
async def test_a_person_approves_in_the_clients_dialog(
    sandbox: SandboxControl, tmp_path: Path, kind: str, mode: str
) -> None:
    shown: list[str] = []

    async def person(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        shown.append(message)
        schema = params.requested_schema["properties"]["decision"]
        assert [c["const"] for c in schema["oneOf"]] == ["approve", "decline"]
        return ElicitResult(action="accept", content={"decision": "approve"})

    with transport(kind, confirm_config(tmp_path, sandbox)) as t:
        async with Client(t, timeout=90, mode=mode, elicitation_handler=person) as client:
            oid = await scout_draft(client, "devto", "rust async", "Rust async")
            got = await strike(client, oid, "post", POST["content"], POST["title"])
            assert got["status"] == "posted", got
            record = got["record"]
            audit = json.loads(
                (await client.read_resource(f"gwanjong://strike/{record}"))[0].text  # type: ignore[union-attr]
            )
    writes = sandbox.writes("devto")
    assert len(writes) == 1 and POST["content"] in json.dumps(writes[0])
    assert POST["content"] in shown[0] and POST["title"] in shown[0]
    (approval,) = approvals(tmp_path)
    assert approval.status == "approved" and approval.channel == "elicitation"
    assert approval.record == record and POST["content"] in approval.text
    assert audit["approval"]["channel"] == "elicitation"
    assert audit["approval"]["sha256"] == approval.digest
