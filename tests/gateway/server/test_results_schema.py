"""Every result the five tools give, over MCP in both protocol eras, conforms to the output
schema the tool declares, and reads back into its model unchanged (the wire is the model).

The gateway runs in-process over a fake forum (posts auto, comments and likes for a
person), so every strike status is reachable: posted, dry_run, handoff, declined, refused
(with a record, and with the choices of an ambiguous confirm_handoff) and duplicate. A
failed call keeps its error as data (`{"error": {...}}`), which every schema admits.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.client import CallToolResult
from fastmcp.client.elicitation import ElicitResult
from jsonschema import Draft202012Validator
from pydantic import BaseModel, TypeAdapter

from gwanjong_gateway.scout.scout_results import DraftResult, ScoutResult
from gwanjong_gateway.setup.setup_results import SetupResult
from gwanjong_gateway.status_report import StatusResult
from gwanjong_gateway.strike.results import StrikeResult
from gwanjong_shared.contract.errors import ErrorResult
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.gateway.helpers import opportunity_for

pytestmark = pytest.mark.anyio
MODELS: dict[str, Any] = {
    "scout": ScoutResult,
    "draft": DraftResult,
    "strike": StrikeResult,
    "status": StatusResult,
    "setup": SetupResult,
}


class Checked:
    """A client whose every call is checked against the tool's declared output schema."""

    def __init__(self, client: Client[Any]) -> None:
        self.client = client
        self.validators: dict[str, Draft202012Validator] = {}
        self.seen: set[tuple[str, str]] = set()  # (tool, variant) reached

    async def start(self) -> Checked:
        for tool in await self.client.list_tools():
            assert tool.output_schema is not None, f"{tool.name} declares no output schema"
            Draft202012Validator.check_schema(tool.output_schema)
            self.validators[tool.name] = Draft202012Validator(tool.output_schema)
        assert set(self.validators) == set(MODELS)
        return self

    async def call(self, tool: str, **args: Any) -> dict[str, Any]:
        result = await self.client.call_tool(tool, args, raise_on_error=False)
        data = conforming(self.validators[tool], result)
        if result.is_error:
            ErrorResult.model_validate(data)
            self.seen.add((tool, "error"))
            return data
        parsed = TypeAdapter(MODELS[tool]).validate_python(data)
        # the model says exactly what the wire says: nothing dropped, nothing added
        assert isinstance(parsed, BaseModel) and parsed.model_dump(mode="json") == data
        self.seen.add((tool, str(data["status"]) if tool == "strike" else type(parsed).__name__))
        return data


def conforming(validator: Draft202012Validator, result: CallToolResult) -> dict[str, Any]:
    data = result.structured_content
    assert data is not None, result
    problems = [e.message for e in validator.iter_errors(data)]
    assert not problems, (problems, data)
    return data


async def drafted(c: Checked, topic: str = "rust async cancellation") -> str:
    scouted = await c.call("scout", topic=topic, limit=5)
    oid = opportunity_for(scouted, "devto", "Rust async")
    drafted = await c.call("draft", opportunity_id=oid)
    assert drafted["strike"]["actions"]["comment"]["allowed"] == "human", drafted
    return oid


async def test_every_live_result_and_error_conforms(
    forum: FakePlatform, tmp_path: Path, mode: str
) -> None:
    gateway = fake_gateway(tmp_path, forum, settings={"model_may_save_credentials": True})
    async with Client(gateway, mode=mode) as client:
        c = await Checked(client).start()
        await c.call("status")
        await c.call("scout", source="mentions", limit=5)
        oid = await drafted(c)
        strike = functools.partial(c.call, "strike", opportunity_id=oid)
        posted = await strike(action="post", content="Hi.", title="T")
        assert posted["status"] == "posted" and "reason" not in posted, posted
        again = await strike(action="post", content="Hi.", title="T")
        assert again["status"] == "duplicate" and again["earlier"]["record"] == posted["record"]
        comment = await strike(action="comment", content="Nice.")
        assert comment["status"] == "handoff" and comment["text"].startswith("Nice."), comment
        upvote = await strike(action="upvote")
        assert upvote["status"] == "handoff" and "text" not in upvote, upvote  # nothing to type
        which = await strike(action="confirm_handoff")
        assert which["status"] == "refused" and len(which["choices"]) == 2, which
        assert "record" not in which  # nothing was recorded
        mine = {"action": "confirm_handoff", "handoff": comment["record"]}
        said = await strike(**mine, content="https://dev.to/me/mine")
        assert said["status"] == "handoff" and said["record"] == comment["record"], said
        target = next(
            p for p, cs in forum.comments.items() if forum.posts[p].url == comment["open"]
        )
        forum.record("write_comment", target, body=comment["text"])  # the person, by hand
        done = await strike(**mine)
        assert done["status"] == "posted" and done["action"] == "comment", done
        twice = await strike(**mine)
        assert twice["status"] == "duplicate", twice
        status = await c.call("status")
        assert status["tools"]["available"] == ["scout", "draft", "strike"], status
        assert status["platforms"]["devto"]["writes_paused"] is None  # sent as null, not left out
        checked = await c.call("setup", action="check")
        assert checked["check"]["devto"]["ok"] is True, checked
        await c.call("setup", action="guide", platform="devto")
        saved = await c.call(
            "setup", action="save", platform="devto", credentials={"DEVTO_API_KEY": "k-123456"}
        )
        assert saved["saved"] == ["DEVTO_API_KEY"], saved
        # a failure of each tool: its error as data, within the same schema
        await c.call("scout", topic=" ")
        await c.call("draft", opportunity_id="nope")
        await c.call("strike", opportunity_id="nope", action="comment", content="x")
        await c.call("status", unexpected=1)
        await c.call("setup", action="guide", platform="no such!")
    reached = {
        ("status", "StatusResult"),
        ("scout", "ScoutResult"),
        ("draft", "DraftResult"),
        ("strike", "posted"),
        ("strike", "duplicate"),
        ("strike", "handoff"),
        ("strike", "refused"),
        ("setup", "SetupCheck"),
        ("setup", "SetupGuide"),
        ("setup", "SetupSaved"),
        *((tool, "error") for tool in MODELS),
    }
    assert c.seen == reached


async def test_dry_run_declined_refused_and_waiting_conform_to_a_schema_not_vacuous(
    forum: FakePlatform, tmp_path: Path, mode: str
) -> None:
    async with Client(fake_gateway(tmp_path / "dry", forum, writes="dry-run"), mode=mode) as client:
        c = await Checked(client).start()
        dry = await c.call(
            "strike", opportunity_id=await drafted(c), action="post", content="Hi.", title="T"
        )
        assert dry["status"] == "dry_run" and dry["would"]["target"] is None, dry  # a new post
    # The schema is not vacuous: it refuses another status, a result without the fields
    # every result of its tool carries, an error of an unknown kind. (Field types and which
    # status carries which field are the models', not the schema's: docs/develop/results.md.)
    strike = c.validators["strike"]
    assert strike.is_valid(dry)
    assert not strike.is_valid({**dry, "status": "maybe"})
    assert not strike.is_valid({"status": "dry_run", "would": dry["would"]})  # no reason
    assert not strike.is_valid({k: v for k, v in dry.items() if k != "status"})  # always sent
    assert not strike.is_valid({"error": {"kind": "oops", "message": "x"}})
    assert not c.validators["scout"].is_valid({"opportunities": []})  # errors is always sent

    async def decline(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        return ElicitResult(action="decline")

    confirm = fake_gateway(
        tmp_path / "confirm", forum, writes="confirm", tables={"review": {"min_read_s": 0}}
    )
    async with Client(confirm, mode=mode, elicitation_handler=decline) as client:
        c2 = await Checked(client).start()
        oid = await drafted(c2)
        no = await c2.call("strike", opportunity_id=oid, action="post", content="Hi.", title="T")
        assert no["status"] == "declined", no
        waiting = await c2.call("setup", action="save", platform="devto")
        assert waiting == {"saved": [], "status": "declined", "next": "Nothing was saved."}
    unasked = fake_gateway(tmp_path / "unasked", forum, writes="confirm")
    async with Client(unasked, mode=mode) as client:
        c3 = await Checked(client).start()
        oid = await drafted(c3)
        waits = await c3.call("strike", opportunity_id=oid, action="post", content="Hi.", title="T")
        assert waits["status"] == "pending_approval" and waits["approval"]["how"], waits
        refused = await c3.call(  # too long a title: refused and recorded
            "strike", opportunity_id=oid, action="post", content="Other.", title="t" * 129
        )
        assert refused["status"] == "refused" and isinstance(refused["record"], int), refused
    seen = {v for _, v in c.seen | c2.seen | c3.seen}
    assert seen >= {"dry_run", "declined", "refused", "pending_approval"}
    assert ("setup", "SetupWaiting") in c2.seen
