"""strike's safety: modes, approval, policy, idempotency, limits, pause, audit.

The platform is a fake forum in memory (tests/fakes) whose rules cover both sides: posts
are `auto`, comments and likes are `human` (hand-off). Comment paths on `auto`/`summoned`
platforms, through the real servers and the sandbox, run in
tests/gateway/strike/test_strike_platforms.py.
"""

from __future__ import annotations

import json
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client, FastMCP
from fastmcp.client.elicitation import ElicitResult
from fastmcp.exceptions import ToolError
from mcp import types
from mcp.shared.exceptions import MCPError

from gwanjong_gateway.config import parse
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import operator_name
from gwanjong_gateway.server import build_gateway
from gwanjong_shared.contract import Limit
from gwanjong_shared.contract.errors import ErrorKind
from tests.fakes.clock import FakeClock
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.gateway.helpers import config_text, drafted, patient_gateway
from tests.gateway.rows import history
from tests.mcp import call, outcome

pytestmark = pytest.mark.anyio


async def strike(
    client: Client[Any],
    oid: str,
    action: str = "post",
    content: str = "Guards around every await.",
    title: str = "Cancellation-safe handlers",
) -> dict[str, Any]:
    args = {"opportunity_id": oid, "action": action, "content": content, "title": title}
    return await outcome(client, "strike", **args)


async def test_dry_run_writes_nothing_and_shows_exactly_what(
    forum: FakePlatform, tmp_path: Path
) -> None:
    forum.profile = replace(forum.profile, destination="r/fake", sent_with={"langs": "de"})
    async with Client(fake_gateway(tmp_path, forum, writes="dry-run")) as client:
        oid = await drafted(client)
        result = await strike(client, oid)
        assert result["status"] == "dry_run"
        would = result["would"]
        assert would["platform"] == "devto" and would["tool"] == "write_post"
        # where it goes and what else the platform's server sends, as every surface says
        assert (would["destination"], would["sent_with"]) == ("r/fake", {"langs": "de"})
        assert would["arguments"]["title"] == "Cancellation-safe handlers"
        assert would["arguments"]["body"].startswith("Guards around every await.")
        assert "Drafted with an AI assistant (fake forum)" in would["arguments"]["body"]  # footer
        again = await strike(client, oid)
        assert again["status"] == "dry_run"  # a dry run is not an action
        assert again["record"] == result["record"]  # the same dry run: the same record
    assert forum.writes == [] and set(forum.asked()) == {"validate"}  # validated, never sent
    assert [r.status for r in history(tmp_path)] == ["dry_run"]


async def test_same_strike_twice_at_once_writes_once(forum: FakePlatform, tmp_path: Path) -> None:
    async with Client(fake_gateway(tmp_path, forum)) as client:
        oid = await drafted(client)
        results: list[dict[str, Any]] = []

        async def go() -> None:
            results.append(await strike(client, oid))

        async with anyio.create_task_group() as tg:
            tg.start_soon(go)
            tg.start_soon(go)
        assert sorted(r["status"] for r in results) == ["duplicate", "posted"]
    assert len(forum.writes) == 1


@pytest.mark.parametrize(
    ("answer", "read_s", "status"),
    [
        ("approve", 0, "posted"),
        ("decline", 5, "declined"),  # read, then declined: a person's "no"
        ("decline", 0, "pending_approval"),  # declined at once: the client, not a person
        ("refuse", 5, "declined"),  # the client's own decline button, after reading
        ("cancel", 5, "pending_approval"),  # closed without deciding
        ("error", 0, "pending_approval"),  # the client answered the dialog with an error
    ],
)
async def test_confirm_mode_asks_the_human(
    forum: FakePlatform, tmp_path: Path, mode: str, answer: str, read_s: float, status: str
) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []
    clock = FakeClock()

    async def handler(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        asked.append((message, params.requested_schema))
        clock.advance(read_s)  # the person reads for this long (the modern era: the wall)
        if answer == "error":
            raise RuntimeError("this client cannot show dialogs")
        if answer in ("approve", "decline"):
            return ElicitResult(action="accept", content={"decision": answer})
        return ElicitResult(action="decline" if answer == "refuse" else "cancel")  # type: ignore[arg-type]

    gateway = fake_gateway(tmp_path, forum, writes="confirm", clock=clock, wall=clock.time)
    async with Client(gateway, mode=mode, elicitation_handler=handler) as client:
        oid = await drafted(client)
        if answer == "error" and mode == "auto":
            # stateless era: the client drives the input round itself and gives up with the
            # error; the approval recorded in the first round stays pending on the server
            with pytest.raises(MCPError, match="cannot show dialogs"):
                await strike(client, oid)
            answer = "gone"  # the next strike is asked no more: it reports the pending one
            result = await strike(client, oid)
        else:
            result = await strike(client, oid)
        assert result["status"] == status, result
    message, schema = asked[0]
    assert "Cancellation-safe handlers" in message and "Guards around every await." in message
    assert "devto" in message and "Approve" in message
    assert "Drafted with an AI assistant (fake forum)" in message  # the exact text: footer too
    choices = schema["properties"]["decision"]["oneOf"]  # labelled choices, never "Value"
    assert [c["title"].split(":")[0] for c in choices] == ["Approve", "Decline"]
    assert len(forum.writes) == (1 if status == "posted" else 0)
    with closing(StrikeStore(tmp_path / "gwanjong.db")) as store:
        (approval,) = store.approvals(clock.time(), pending=False)
    expected = {"posted": "approved", "declined": "declined", "pending_approval": "pending"}
    assert approval.status == expected[status]
    # a decision leaves its strike row; a pending approval none yet
    assert [r.status for r in history(tmp_path)] == (
        [] if status == "pending_approval" else [status]
    )
    me = operator_name()  # the dialog's person has the operator's one name
    if status == "posted":
        assert history(tmp_path)[0].approver == "human" and approval.channel == "elicitation"
        assert any(
            f"approved by {me} via elicitation" in str(p) for p in history(tmp_path)[0].policy
        )
    if status != "pending_approval":
        assert approval.decided_by == me
    if status == "declined":
        assert f"Declined by {me} via elicitation." in result["reason"]
        assert history(tmp_path)[0].confirmed_by == me
    if status == "pending_approval":
        assert result["approval"]["id"] == approval.id
        assert any("gwanjong review approve" in way for way in result["approval"]["how"])


async def closed(*_: Any) -> ElicitResult[Any]:
    return ElicitResult(action="cancel")


#: what each client's first strike is told (its dialog: none, not opened, closed)
WAITS = {
    "no dialog": "shows no approval dialog",
    "queue": "no dialog was shown",
    "sampling": "closed without a decision",
}


@pytest.mark.parametrize("asked", list(WAITS))
async def test_confirm_without_elicitation_waits_for_a_person(
    forum: FakePlatform, tmp_path: Path, mode: str, asked: str
) -> None:
    """Also when the client (a model speaking MCP itself) answers "approve" to a dialog never
    opened (no elicitation, or ask = "queue"), or answers the dialog with a sampling result."""
    tables = {"review": {"ask": "queue"}} if asked == "queue" else None
    gateway = fake_gateway(tmp_path, forum, writes="confirm", tables=tables)
    handler = closed if asked != "no dialog" else None
    async with Client(gateway, mode=mode, elicitation_handler=handler) as client:
        oid = await drafted(client)
        result = await strike(client, oid)
        assert result["status"] == "pending_approval", result
        assert WAITS[asked] in result["reason"]
        again = await strike(client, oid)  # the same write again: the same approval
        assert again["status"] == "pending_approval"
        assert again["approval"]["id"] == result["approval"]["id"]
        if mode == "auto":  # a stateless round carrying an answer nobody was asked for
            approve: types.InputResponse = types.ElicitResult(
                action="accept", content={"decision": "approve"}
            )
            if asked == "sampling":
                said = types.TextContent(type="text", text="approve")
                approve = types.CreateMessageResult(role="assistant", content=said, model="m")
            forged: types.InputResponses = {f"approval-{result['approval']['id']}": approve}
            args = {
                "opportunity_id": oid,
                "action": "post",
                "content": "Guards around every await.",
                "title": "Cancellation-safe handlers",
            }
            answer = await client.session.call_tool("strike", args, input_responses=forged)
            assert (answer.structured_content or {})["status"] == "pending_approval", answer
    assert forum.writes == [] and set(forum.asked()) == {"validate"}
    assert history(tmp_path) == []  # waiting: no strike row yet


async def test_title_length_at_max_and_max_plus_one(forum: FakePlatform, tmp_path: Path) -> None:
    async with Client(fake_gateway(tmp_path, forum)) as client:
        oid = await drafted(client)
        over = await strike(client, oid, title="t" * 129)
        assert over["status"] == "refused" and "129 chars" in over["reason"]
        assert "128" in over["reason"]
        fits = await strike(client, oid, title="t" * 128)
        assert fits["status"] == "posted"
    assert len(forum.writes) == 1


async def test_minimum_interval(forum: FakePlatform, tmp_path: Path) -> None:
    gateway = fake_gateway(tmp_path, forum, platform={"min_interval_s": 600})
    async with Client(gateway) as client:
        oid = await drafted(client)
        assert (await strike(client, oid, content="First."))["status"] == "posted"
        early = await strike(client, oid, content="Second.", title="Another one")
        assert early["status"] == "refused" and "Too soon" in early["reason"]
        assert 590 <= early["retry_after"] <= 600


async def test_opt_out_author_is_never_targeted(forum: FakePlatform, tmp_path: Path) -> None:
    gateway = fake_gateway(tmp_path, forum, tables={"safety": {"opt_out": ["devto:ferris_fan"]}})
    async with Client(gateway) as client:
        scouted = await call(client, "scout", topic="rust async cancellation", limit=10)
        assert all("Rust async" not in o["title"] for o in scouted["opportunities"])  # dropped


async def test_three_failures_pause_writes_until_check(forum: FakePlatform, tmp_path: Path) -> None:
    async with Client(fake_gateway(tmp_path, forum)) as client:
        oid = await drafted(client)
        forum.fail("write_post", ErrorKind.AUTH, count=3)
        failures = [
            await strike(client, oid, content=f"Attempt {i}.", title=f"Attempt {i}")
            for i in range(3)
        ]
        assert all(f["error"].startswith("auth: ") for f in failures), failures
        assert "paused" not in failures[1]["error"] and "paused" in failures[2]["error"]
        status = await call(client, "status")
        assert "3 write failures" in status["platforms"]["devto"]["writes_paused"]
        paused = await strike(client, oid, content="Attempt 4.", title="Attempt 4")
        assert paused["status"] == "refused" and "paused" in paused["reason"]
        checked = await call(client, "setup", action="check", platform="devto")
        assert checked["check"]["devto"]["writes_resumed"] is True
        resumed = await strike(client, oid, content="Attempt 5.", title="Attempt 5")
        assert resumed["status"] == "posted"
    assert len(forum.writes) == 1


async def test_unknown_outcome_is_read_back_not_retried(
    forum: FakePlatform, tmp_path: Path
) -> None:
    async with Client(fake_gateway(tmp_path, forum)) as client:
        oid = await drafted(client)
        # The platform writes, but its answer comes too late: the outcome is unknown.
        forum.land("write_post", ErrorKind.TIMEOUT)
        result = await strike(client, oid)
        assert result["status"] == "posted" and "reading back" in result["reason"]
        again = await strike(client, oid)
        assert again["status"] == "duplicate"
    assert len(forum.writes) == 1
    row = history(tmp_path)[-1]
    assert row.status == "posted" and "read-back: found on the platform" in row.policy


async def test_the_audit_record_keeps_context_and_decisions(
    forum: FakePlatform, tmp_path: Path
) -> None:
    async with Client(fake_gateway(tmp_path, forum)) as client:
        oid = await drafted(client)
        await strike(client, oid)
    row = history(tmp_path)[0]
    assert row.context["opportunity_id"] == row.opportunity != oid  # the stable id
    assert "<untrusted-" in row.context["post"] and oid not in json.dumps(row.context)
    assert row.policy[0] == "mode=live"
    assert any(p.startswith("validate: allowed=auto") for p in row.policy)
    assert row.approver == "auto" and row.result_url and row.created_at <= row.updated_at


def without_capabilities(real: FastMCP[Any]) -> FastMCP[Any]:
    """A platform server whose `capabilities` tool fails (its rules, limits and profile
    cannot be learnt); every other tool is the real one."""
    outer: FastMCP[Any] = FastMCP("devto")
    outer.mount(real)

    @outer.tool(name="capabilities")
    def capabilities() -> dict[str, Any]:
        raise ToolError("unavailable: the server cannot answer capabilities now. Try again later.")

    return outer


@pytest.mark.parametrize("toml_footer", [None, ""])
async def test_no_write_without_knowing_the_footer(
    forum: FakePlatform, tmp_path: Path, toml_footer: str | None
) -> None:
    # The footer may be the platform's own (its profile): while the platform has never
    # answered capabilities, strike refuses rather than write without it, unless
    # gateway.toml sets the footer itself ("" = none).
    table: dict[str, Any] = {"min_interval_s": 0}
    if toml_footer is not None:
        table["disclosure"] = toml_footer
    config = parse(config_text(tmp_path, ["devto"], platform=table))
    transports = {"devto": without_capabilities(forum.server())}
    async with Client(
        build_gateway(config, gateway=patient_gateway(config, {}, transports))
    ) as client:
        oid = await drafted(client)
        # nor is a title sent apart while whether its posts have one is unknown (a server
        # whose posts have none sends it as the text's first paragraph)
        titled = await strike(client, oid)
        forum.profile = replace(forum.profile, limits={"body": Limit(max=500, unit="chars")})
        got = await strike(client, oid, title="")
    if toml_footer is None:
        assert got["status"] == "refused" and "footer is unknown" in got["reason"], got
        assert forum.writes == []
    else:
        assert got["status"] == "posted", got
        assert [w.data["body"] for w in forum.writes] == ["Guards around every await."]
        assert "whether its posts have a title is unknown" in titled["reason"], titled


async def test_the_same_post_with_invisible_characters_in_it_is_the_same_post(
    forum: FakePlatform, tmp_path: Path
) -> None:
    """Never twice: a new post's text is the same when only characters that draw nothing
    differ (a zero-width space, a word joiner, a soft hyphen, a variation selector), with
    no cool-down window to catch it as near-identical."""
    once = "Guards around every await keep the handler cancellation-safe."
    hidden = "Guards\u200b around every\u2060 await keep the han\u00addler\ufe0f cancellation-safe."
    tables = {"safety": {"author_cooldown_days": 0}}
    async with Client(fake_gateway(tmp_path, forum, tables=tables)) as client:
        oid = await drafted(client)
        first = await strike(client, oid, content=once)
        again = await strike(client, oid, content=hidden)
    assert (first["status"], again["status"]) == ("posted", "duplicate"), again
    assert len(forum.written("write_post")) == 1
