"""The five gateway tools over MCP (in-memory, both protocol eras), over a fake platform
in memory (tests/fakes): the gateway's logic, not a platform's specifics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from gwanjong_shared.contract.errors import ErrorKind
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import LINKS
from tests.mcp import call, error_of

pytestmark = pytest.mark.anyio


async def test_exactly_five_tools(forum: FakePlatform, tmp_path: Path, mode: str) -> None:
    async with Client(fake_gateway(tmp_path, forum), mode=mode) as client:
        tools = {t.name: t for t in await client.list_tools()}
        assert set(tools) == {"scout", "draft", "strike", "status", "setup"}
        assert tools["scout"].annotations.read_only_hint is True  # type: ignore[union-attr]
        assert tools["status"].annotations.read_only_hint is True  # type: ignore[union-attr]
        assert tools["strike"].annotations.destructive_hint is True  # type: ignore[union-attr]
        assert tools["strike"].annotations.open_world_hint is True  # type: ignore[union-attr]
        for tool in tools.values():
            assert "state" not in tool.input_schema.get("properties", {})
            assert tool.description and "Example" in tool.description


async def test_out_of_order_calls_are_guided(
    forum: FakePlatform, tmp_path: Path, mode: str
) -> None:
    async with Client(fake_gateway(tmp_path, forum), mode=mode) as client:
        draft_first = await error_of(client, "draft", opportunity_id="devto-000000")
        assert draft_first.startswith("needs_previous_step: ")
        assert "Call `scout` first" in draft_first
        strike_first = await error_of(
            client, "strike", opportunity_id="x", action="comment", content="hi"
        )
        assert "Call `scout` first" in strike_first and "then `draft` it" in strike_first
        status = await call(client, "status")
        assert status["tools"]["available"] == ["scout"]
        assert {b["tool"] for b in status["tools"]["blocked"]} == {"draft", "strike"}
        # a handle one character off is sent back to scout, never told another handle
        real = (await call(client, "scout", topic="rust", limit=2))["opportunities"][0]["id"]
        near = real[:-1] + ("A" if real[-1] != "A" else "B")
        text = await error_of(client, "draft", opportunity_id=near)
        assert text.startswith("needs_previous_step: ") and "Call `scout` first" in text
        assert real not in text
        text = await error_of(client, "strike", opportunity_id=real, action="comment", content="x")
        assert "draft" in text and "first" in text


async def test_scout_draft_strike_in_three_calls(
    forum: FakePlatform, tmp_path: Path, mode: str
) -> None:
    async with Client(fake_gateway(tmp_path, forum), mode=mode) as client:
        scouted = await call(client, "scout", topic="rust async cancellation", limit=3)
        assert scouted["errors"] == {}
        top = scouted["opportunities"][0]
        assert set(top) == {"id", "platform", "title", "url", "score", "comments_count", "reason"}
        assert "Rust async" in top["title"] and "cancellation" in top["reason"]
        drafted = await call(client, "draft", opportunity_id=top["id"])
        assert "<untrusted-" in drafted["post"] and "select!" in drafted["post"]
        assert all("<untrusted-" in c["text"] for c in drafted["top_comments"])
        assert len(drafted["top_comments"]) <= 5
        assert drafted["mood"]["label"] in {"positive", "negative", "mixed", "neutral"}
        assert drafted["limits"]["title"] == {"max": 128, "unit": "chars"}
        assert drafted["strike"]["actions"]["comment"]["allowed"] == "human"
        assert drafted["strike"]["actions"]["post"]["allowed"] == "auto"
        post = {"title": "Cancellation-safe handlers", "content": "Guards around every await."}
        struck = await call(client, "strike", opportunity_id=top["id"], action="post", **post)
        assert struck["status"] == "posted"
        assert struck["url"].startswith("https://dev.to/")
    assert [w.action for w in forum.writes] == ["write_post"]


async def test_scout_is_multilingual_and_reports_progress(
    forum: FakePlatform, tmp_path: Path
) -> None:
    seen: list[str] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(message or "")

    async with Client(fake_gateway(tmp_path, forum)) as client:
        scouted = (
            await client.call_tool(
                "scout", {"topic": "파이썬 비동기", "limit": 2}, progress_handler=progress
            )
        ).structured_content
        assert scouted is not None
        assert "비동기" in scouted["opportunities"][0]["title"]
    assert seen and seen[-1].startswith("devto:")


async def test_platform_errors_stay_in_errors(forum: FakePlatform, tmp_path: Path) -> None:
    forum.fail(kind=ErrorKind.UNAVAILABLE, count=50)
    async with Client(fake_gateway(tmp_path, forum)) as client:
        scouted = await call(client, "scout", topic="rust")
        assert scouted["opportunities"] == []
        assert scouted["errors"]["devto"].count("unavailable") == 2
        assert "hint" in scouted


@pytest.mark.parametrize(
    ("tool", "args", "expect"),
    [
        ("scout", {"topic": ""}, "invalid_input"),
        ("scout", {"topic": "x", "limit": 0}, "invalid_input"),
        ("scout", {"topic": "x", "platforms": ["myspace"]}, "myspace"),
        ("scout", {}, "invalid_input"),
        ("draft", {"opportunity_id": 5}, "invalid_input"),
        ("strike", {"opportunity_id": "x", "action": "retweet", "content": "hi"}, "invalid_input"),
        ("setup", {"action": "format_disk"}, "invalid_input"),
        ("setup", {"action": "save", "platform": "devto"}, "not_supported"),
        ("status", {"verbose": True}, "invalid_input"),
        ("scout", {"\u202etopic": "x"}, "'topic' (hidden characters left out): Unexpected"),
    ],
)
async def test_bad_arguments_on_every_tool(
    forum: FakePlatform, tmp_path: Path, tool: str, args: dict[str, Any], expect: str
) -> None:
    async with Client(fake_gateway(tmp_path, forum)) as client:
        text = await error_of(client, tool, **args)
        assert expect in text and "Traceback" not in text


async def test_setup_check_and_guide(forum: FakePlatform, tmp_path: Path) -> None:
    links = FakePlatform(LINKS)
    async with Client(fake_gateway(tmp_path, forum, links)) as client:
        checked = await call(client, "setup", action="check")
        assert checked["check"]["devto"]["ok"] is True
        assert checked["check"]["devto"]["account"] == "gwanjong_bot"
        guide = await call(client, "setup", action="guide", platform="reddit")
        # The guide is the platform server's own (the fake's), not gateway text.
        assert LINKS.about is not None
        assert guide["guides"]["reddit"]["where"] == LINKS.about.setup.where
        assert guide["guides"]["reddit"]["steps"] == LINKS.about.setup.steps
        # A platform not enabled here has no server to ask: it is only named.
        other = await call(client, "setup", action="guide", platform="twitter")
        assert "not enabled" in other["guides"]["twitter"]["steps"][0]


async def test_setup_save_writes_a_private_env_file_and_never_echoes(
    forum: FakePlatform, tmp_path: Path
) -> None:
    gateway = fake_gateway(tmp_path, forum, settings={"model_may_save_credentials": True})
    async with Client(gateway) as client:
        key = {"DEVTO_API_KEY": "sk-very-secret-123"}
        result = await client.call_tool(
            "setup", {"action": "save", "platform": "devto", "credentials": key}
        )
        assert "sk-very-secret-123" not in str(result.content)
        assert "sk-very-secret-123" not in str(result.structured_content)
        assert result.structured_content is not None
        assert result.structured_content["saved"] == ["DEVTO_API_KEY"]
        env_file = tmp_path / ".env"
        assert env_file.read_text() == "DEVTO_API_KEY='sk-very-secret-123'\n"
        assert env_file.stat().st_mode & 0o777 == 0o600
        bad = await error_of(
            client,
            "setup",
            action="save",
            platform="devto",
            credentials={"BLUESKY_APP_PASSWORD": "x"},
        )
        assert bad.startswith("invalid_input: ") and "DEVTO_API_KEY" in bad


async def test_expose_lists_and_forwards_a_raw_tool(forum: FakePlatform, tmp_path: Path) -> None:
    gateway = fake_gateway(tmp_path, forum, settings={"expose": ["devto__get_post"]})
    async with Client(gateway) as client:
        names: set[str] = set()
        with anyio.fail_after(60):  # exposed tools appear once their server is up; generous
            while "devto__get_post" not in names:
                names = {t.name for t in await client.list_tools()}
                await anyio.sleep(0.05)
        assert names == {"scout", "draft", "strike", "status", "setup", "devto__get_post"}
        post = await client.call_tool("devto__get_post", {"post_id": forum.ids["rust-async"]})
        assert post.structured_content is not None and "select!" in post.structured_content["body"]
        gone = await client.call_tool(
            "devto__get_post", {"post_id": "999999"}, raise_on_error=False
        )
        assert gone.is_error and gone.content[0].text.startswith("not_found: ")  # type: ignore[union-attr]
