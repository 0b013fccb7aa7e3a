"""Resources and the `engage` prompt through a real client: list, read, get (over fake
platforms in memory, tests/fakes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastmcp import Client

from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import LINKS
from tests.gateway.helpers import drafted, resource
from tests.mcp import call

pytestmark = pytest.mark.anyio


async def test_listed_resources_and_prompt(forum: FakePlatform, tmp_path: Path, mode: str) -> None:
    async with Client(fake_gateway(tmp_path, forum), mode=mode) as client:
        resources = {str(r.uri) for r in await client.list_resources()}
        assert {"gwanjong://policy", "gwanjong://history", "gwanjong://usage"} <= resources
        templates = {t.uri_template for t in await client.list_resource_templates()}
        assert {"gwanjong://history/{platform}", "gwanjong://strike/{record}"} <= templates
        prompts = {p.name: p for p in await client.list_prompts()}
        args = {a.name: a.required for a in prompts["engage"].arguments or []}
        assert args == {"topic": True, "platforms": False}
        got = await client.get_prompt("engage", {"topic": "rust async", "platforms": "devto"})
        text = got.messages[0].content.text  # type: ignore[union-attr]
        assert 'scout(topic="rust async", platforms=["devto"])' in text
        assert "untrusted" in text and "confirm_handoff" in text and "Write mode is live" in text


async def test_policy_is_the_live_capabilities_table(forum: FakePlatform, tmp_path: Path) -> None:
    async with Client(
        fake_gateway(tmp_path, forum, FakePlatform(LINKS), writes="dry-run")
    ) as client:
        [policy] = await client.read_resource("gwanjong://policy")
    table = policy.text  # type: ignore[union-attr]
    assert "Write mode: dry-run" in table
    devto = next(line for line in table.splitlines() if line.startswith("| devto |"))
    reddit = next(line for line in table.splitlines() if line.startswith("| reddit |"))
    cells = [c.strip() for c in devto.strip("|").split("|")]
    assert cells[2].startswith("**auto**") and cells[3].startswith("**human**")
    assert [c.strip() for c in reddit.strip("|").split("|")][4].startswith("**never**")


async def test_history_and_one_strike_record(forum: FakePlatform, tmp_path: Path) -> None:
    async with Client(fake_gateway(tmp_path, forum)) as client:
        assert await resource(client, "gwanjong://history") == []
        oid = await drafted(client)
        handed = await call(
            client, "strike", opportunity_id=oid, action="comment", content="Guard every await."
        )
        assert handed["status"] == "handoff"
        recent = await resource(client, "gwanjong://history")
        assert [r["status"] for r in recent] == ["handoff"]
        assert await resource(client, "gwanjong://history/devto") == recent
        record = recent[0]["record"]
        audit = await resource(client, f"gwanjong://strike/{record}")
        assert audit["content"].startswith("Guard every await.")
        # the audit names the post by its stable id, never by the handle (a capability)
        assert audit["context"]["opportunity_id"].startswith("devto-")
        assert audit["policy"] and oid not in json.dumps(audit)
        # a record or a platform that is not there: tests/gateway/server/test_resources_wire.py
