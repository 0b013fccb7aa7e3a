"""The gateway's typed PlatformClient against a tiny in-test platform server: contract
models out, one PlatformError in; the kind from structured data when sent, from the
`kind: ` text when a third-party server sends text only, and TIMEOUT from MCP's own
request-timeout error."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.tools.base import ToolResult
from mcp.types import TextContent

from gwanjong_gateway.config import parse
from gwanjong_gateway.platforms.client import PlatformClient
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_shared.contract import Capabilities, Validation
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.models import Post
from tests.gateway.helpers import config_text

pytestmark = pytest.mark.anyio

POST = {"id": "p1", "platform": "tiny", "title": "Hello", "url": "https://tiny.test/p1"}
CAPS = {
    "platform": "tiny",
    "configured": True,
    "account": "me",
    "actions": {
        "write_post": {"allowed": "human", "reason": "people only"},
        "write_comment": {"allowed": "auto", "reason": "ok"},
        "upvote": {"allowed": "never", "reason": "no votes"},
    },
    "limits": {"comment": {"max": 500, "unit": "chars"}},
}


def tiny() -> FastMCP[Any]:
    """A platform server that knows nothing of our shared kit: its errors are text only."""
    mcp: FastMCP[Any] = FastMCP("tiny")

    @mcp.tool
    async def trending(limit: int = 20) -> dict[str, Any]:
        return {"posts": [{"title": "no id, no platform"}]}  # outside the contract

    @mcp.tool
    async def search(query: str, limit: int = 20) -> dict[str, Any]:
        raise ToolError("rate_limited retry_after=9: Slow down, then retry.")

    @mcp.tool
    async def get_post(post_id: str) -> dict[str, Any]:
        if post_id == "slow":
            await anyio.sleep(120)  # a hung platform: the call's timeout ends it
        if post_id != "p1":
            raise ToolError("not_found: no post has that id. Check it from search.")
        return POST

    @mcp.tool
    async def get_comments(post_id: str, limit: int = 50) -> dict[str, Any]:
        return {"comments": []}

    @mcp.tool
    async def capabilities() -> dict[str, Any]:
        return CAPS

    @mcp.tool
    async def validate(
        action: str, body: str = "", title: str = "", post_id: str | None = None
    ) -> dict[str, Any]:
        used = len(body)
        return {
            "ok": used <= 500,
            "allowed": "auto",
            "problems": [],
            "length": {"used": used, "max": 500, "unit": "chars"},
        }

    @mcp.tool
    async def write_post(title: str, body: str, tags: list[str] | None = None) -> dict[str, Any]:
        raise ToolError("Something broke.")  # no kind at all

    @mcp.tool
    async def write_comment(
        post_id: str, body: str, parent_id: str | None = None
    ) -> dict[str, Any]:
        if post_id == "slow":
            await anyio.sleep(120)
        return {"ok": True, "platform": "tiny", "action": "write_comment", "id": "c1"}

    @mcp.tool
    async def upvote(post_id: str) -> ToolResult:
        # Data and text disagree: the data wins.
        return ToolResult(
            content=[TextContent(type="text", text="unavailable: the text says so")],
            structured_content={"error": {"kind": "auth", "message": "the data says so"}},
            is_error=True,
        )

    return mcp


@pytest.fixture
async def upstreams(tmp_path: Path) -> AsyncIterator[Upstreams]:
    tiny_table = {"tiny": {"url": "http://127.0.0.1:9/mcp"}}
    config = parse(config_text(tmp_path, [], settings={"call_timeout_s": 30}, others=tiny_table))
    upstreams = Upstreams(config, environ={}, transports={"tiny": tiny()})
    try:
        yield upstreams
    finally:
        await upstreams.close_all()


async def test_answers_are_contract_models(upstreams: Upstreams) -> None:
    client = PlatformClient(upstreams, "tiny")
    post = await client.get_post("p1")
    assert isinstance(post, Post) and post.title == "Hello"
    caps = await client.capabilities()
    assert isinstance(caps, Capabilities) and caps.actions["upvote"].allowed == "never"
    verdict = await client.validate("write_comment", "hi", post_id="p1")
    assert isinstance(verdict, Validation) and verdict.length.used == 2
    assert await client.get_comments("p1") == []
    written = await client.write("write_comment", {"post_id": "p1", "body": "hi"})
    assert written.ok and written.id == "c1"
    # the platform layer of health saw the typed capabilities
    assert upstreams.health()["tiny"]["platform"]["state"] == "reachable"


async def test_text_only_errors_keep_their_kind(upstreams: Upstreams) -> None:
    client = PlatformClient(upstreams, "tiny")
    with pytest.raises(PlatformError) as gone:
        await client.get_post("nope")
    assert gone.value.kind is ErrorKind.NOT_FOUND
    assert gone.value.message.startswith("no post has that id")
    with pytest.raises(PlatformError) as slow:
        await client.search("rust")
    assert slow.value.kind is ErrorKind.RATE_LIMITED and slow.value.retry_after == 9
    with pytest.raises(PlatformError) as broke:
        await client.write("write_post", {"title": "t", "body": "b"})
    assert broke.value.kind is ErrorKind.UNAVAILABLE
    with pytest.raises(PlatformError) as data:
        await client.write("upvote", {"post_id": "p1"})
    assert data.value.kind is ErrorKind.AUTH and data.value.message == "the data says so"
    with pytest.raises(PlatformError) as shape:
        await client.trending()
    assert shape.value.kind is ErrorKind.UNAVAILABLE
    assert "outside the platform contract" in shape.value.message


@pytest.mark.parametrize("tool", ["get_post", "write_comment"])
async def test_a_timeout_is_recognised_from_the_mcp_error(upstreams: Upstreams, tool: str) -> None:
    await PlatformClient(upstreams, "tiny").capabilities()  # started, on generous time
    client = PlatformClient(upstreams, "tiny", timeout_s=0.05)
    with pytest.raises(PlatformError) as hung:
        if tool == "get_post":
            await client.get_post("slow")
        else:
            await client.write("write_comment", {"post_id": "slow", "body": "hi"})
    assert hung.value.kind is ErrorKind.TIMEOUT
    assert f"did not answer {tool}" in hung.value.message
    # a write may have landed: never an invitation to send it again
    assert ("try again" in hung.value.message) is (tool == "get_post")
