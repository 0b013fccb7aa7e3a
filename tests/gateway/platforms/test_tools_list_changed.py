"""An exposed tool's definition arriving (its platform server up, or up again) is announced
with `notifications/tools/list_changed`: to a session-era client on its session, to a
2026-07-28 client on the `subscriptions/listen` stream it opened."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client
from fastmcp.client.messages import MessageHandler
from fastmcp.client.transports import StreamableHttpTransport
from mcp.client.subscriptions import listen
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ToolsListChanged
from mcp.types import METHOD_NOT_FOUND, ToolListChangedNotification

from gwanjong_gateway.gateway import Gateway
from tests.fakes.platform import FakePlatform
from tests.gateway.helpers import gateway_of
from tests.gateway.http_gateway import serve_app
from tests.mcp import until

pytestmark = pytest.mark.anyio
EXPOSED = "devto__get_post"
DEADLINE_S = 60  # generous: only catches a hang


class Heard(MessageHandler):
    def __init__(self) -> None:
        super().__init__()
        self.changes = 0

    async def on_tool_list_changed(self, message: ToolListChangedNotification) -> None:
        self.changes += 1


async def real_definition(client: Client[Any]) -> None:
    """Until the exposed tool carries its server's schema (the backend is up)."""
    with anyio.fail_after(DEADLINE_S):
        while True:
            tools = {t.name: t for t in await client.list_tools()}
            if "post_id" in tools[EXPOSED].input_schema.get("properties", {}):
                return
            await anyio.sleep(0.05)


async def up_again(gw: Gateway, client: Client[Any], forum: FakePlatform) -> None:
    """The platform server restarted (as setup(save) does): its tools are defined anew."""
    await gw.upstreams.by_name["devto"].close()
    got = await client.call_tool(EXPOSED, {"post_id": str(forum.ids["rust-async"])})
    assert not got.is_error


async def heard_after_up_again(
    heard: Heard, gw: Gateway, client: Client[Any], forum: FakePlatform
) -> None:
    """Until the session's handler hears the change that restarting the server makes."""
    before = heard.changes
    await up_again(gw, client, forum)
    await until(lambda: heard.changes != before, DEADLINE_S, every=0.02)


@pytest.mark.parametrize("over", ["memory", "http"])
async def test_a_session_or_a_listen_stream_hears_the_change(
    forum: FakePlatform, tmp_path: Path, mode: str, over: str
) -> None:
    """legacy: the session's handler (over HTTP, the session's standalone GET stream);
    auto: the `subscriptions/listen` stream the client opened."""
    gw, server = gateway_of(tmp_path, forum, settings={"expose": [EXPOSED]})
    heard = Heard()
    async with contextlib.AsyncExitStack() as stack:
        if over == "http":
            server = StreamableHttpTransport(await stack.enter_async_context(serve_app(server)))
        client = Client(server, mode=mode, message_handler=heard, timeout=60)
        await stack.enter_async_context(client)
        await real_definition(client)
        if mode == "legacy":
            await heard_after_up_again(heard, gw, client, forum)
            init = client.initialize_result
            assert init is not None and init.capabilities.tools is not None
            assert init.capabilities.tools.list_changed is True
            return
        async with listen(client.session, tools_list_changed=True) as stream:
            assert stream.honored.tools_list_changed is True
            await up_again(gw, client, forum)
            with anyio.fail_after(DEADLINE_S):
                assert isinstance(await stream.__anext__(), ToolsListChanged)


async def test_without_expose_nothing_changes_and_no_listen_is_offered(
    forum: FakePlatform, tmp_path: Path
) -> None:
    _, server = gateway_of(tmp_path, forum, settings={"expose": []})
    async with Client(server, mode="auto") as client:
        with pytest.raises(MCPError) as caught:
            async with listen(client.session, tools_list_changed=True):
                pass
    assert caught.value.error.code == METHOD_NOT_FOUND
