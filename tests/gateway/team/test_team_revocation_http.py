"""Revocation within a connected session: `gwanjong token revoke` (the same token store)
makes the very next request of that token fail with nothing run, and an event stream it
holds open is closed; another member's stream and calls go on. And a member's credential
link is theirs: another member's `setup(save)` never cancels it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.transports import StreamableHttpTransport
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitRequestURLParams

from gwanjong_gateway.team.access_tokens import store_for
from tests.fakes.platform import FakePlatform
from tests.gateway.approval_clients import csrf_of, decide, pending, url_only
from tests.gateway.channels.test_approval_page import Person, links
from tests.gateway.http_gateway import INIT, mcp_headers
from tests.gateway.rows import history
from tests.gateway.strike.test_strike import drafted
from tests.gateway.team_gateway import team_gateway
from tests.mcp import call

pytestmark = pytest.mark.anyio
HANG_S = 60  # only catches a hang: the stream is closed after a few rechecks


async def open_session(http: httpx.AsyncClient, url: str, token: str) -> str:
    """A raw MCP session (initialize + initialized): its id."""
    init = await http.post(url, content=json.dumps(INIT), headers=mcp_headers(token))
    assert init.status_code == 200, init.text
    session = init.headers["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    done = await http.post(url, json=note, headers=mcp_headers(token, session))
    assert done.status_code == 202, done.text
    return session


async def test_a_revoked_token_is_refused_next_and_its_open_stream_is_closed(
    forum: FakePlatform, tmp_path: Path
) -> None:
    async with team_gateway(tmp_path, forum, recheck_s=0.05) as team:
        bob, alice = team.tokens["bob"], team.tokens["alice"]
        async with (
            httpx.AsyncClient(timeout=httpx.Timeout(30, read=None)) as http,
            team.client("bob") as b,
        ):
            bob_session = await open_session(http, team.url, bob)
            alice_session = await open_session(http, team.url, alice)
            assert (await call(b, "status"))["writes"] == "live"
            oid = await drafted(b)
            get = {**mcp_headers(bob, bob_session), "Accept": "text/event-stream"}
            async with http.stream("GET", team.url, headers=get) as stream:
                assert stream.status_code == 200
                assert store_for(team.config.state_dir).revoke("bob")  # as the CLI does
                with pytest.raises(MCPError):  # the next call, in the same session
                    await b.call_tool(
                        "strike",
                        {"opportunity_id": oid, "action": "post", "content": "x", "title": "t"},
                    )
                with anyio.fail_after(HANG_S):  # the open stream ends
                    async for _ in stream.aiter_bytes():
                        pass
            again = await http.get(team.url, headers=get)
            assert again.status_code == 401
            # Alice is untouched: her session still answers.
            listed = await http.post(
                team.url,
                json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                headers=mcp_headers(alice, alice_session),
            )
            assert listed.status_code == 200 and "strike" in listed.text
    assert forum.written() == []
    assert history(tmp_path) == []  # nothing ran


async def test_one_members_setup_never_cancels_anothers_credential_link(
    forum: FakePlatform, tmp_path: Path, mode: str
) -> None:
    links: dict[str, str] = {}
    checks: list[int] = []

    def member(team: Any, user: str) -> Client[Any]:
        async def handler(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
            assert isinstance(params, ElicitRequestURLParams)
            links[user] = params.url
            if user == "bob":  # while Bob's page opens, Alice's link still works
                async with httpx.AsyncClient(timeout=30) as web:
                    checks.append((await web.get(links["alice"])).status_code)
            return ElicitResult(action="accept")  # the page is open; typed later

        transport = StreamableHttpTransport(team.url, auth=team.tokens[user])
        return Client(transport, mode=mode, elicitation_handler=handler, timeout=60)

    async with (
        team_gateway(tmp_path, forum, tables={"review": {"approvers": ["alice", "bob"]}}) as team,
        member(team, "alice") as a,
        member(team, "bob") as b,
    ):
        first = await call(a, "setup", action="save", platform="devto")
        second = await call(b, "setup", action="save", platform="devto")
        assert first["status"] == second["status"] == "pending"
        async with httpx.AsyncClient(timeout=30) as web:
            origin = links["alice"].split("/setup/")[0]
            saved = await web.post(
                links["alice"], data={"DEVTO_API_KEY": "alices-key"}, headers={"Origin": origin}
            )
            bobs = await web.get(links["bob"])
        assert saved.status_code == 200 and "Saved" in saved.text
        assert bobs.status_code == 200  # and Bob's own is still open too
        # Alice asking again supersedes her own older link only.
        await call(a, "setup", action="save", platform="devto")
        async with httpx.AsyncClient(timeout=30) as web:
            assert (await web.get(links["bob"])).status_code == 200
    assert checks == [200]


async def test_a_revoked_members_approval_link_decides_nothing(tmp_path: Path) -> None:
    """A URL-mode member is sent their approval's page link (good for 15 minutes); once
    their token is revoked, the link approves nothing: no request of theirs is let in."""
    platform = links()
    async with team_gateway(tmp_path, platform, writes="confirm") as team:
        person = Person()
        transport = StreamableHttpTransport(team.url, auth=team.tokens["alice"])
        async with url_only(Client(transport, elicitation_handler=person.handler)) as alice:
            await pending(alice)
        async with httpx.AsyncClient(timeout=30) as web:
            form = csrf_of((await web.get(person.urls[0])).text)  # the page she opened
            store_for(team.config.state_dir).revoke("alice")
            page = await web.get(person.urls[0])
            tried = await decide(web, person.urls[0], "approve", csrf=form)
    assert page.status_code == tried.status_code == 404, tried.text
    assert platform.writes == []


async def test_a_revoked_approvers_credential_link_saves_nothing(
    forum: FakePlatform, tmp_path: Path
) -> None:
    """An approver's credential link (10 minutes) is theirs: once their token is revoked,
    it no longer changes whom every member's writes go out as."""
    person = Person()
    async with team_gateway(tmp_path, forum, tables={"review": {"approvers": ["alice"]}}) as team:
        transport = StreamableHttpTransport(team.url, auth=team.tokens["alice"])
        async with url_only(Client(transport, elicitation_handler=person.handler)) as alice:
            await call(alice, "setup", action="save", platform="devto")
        store_for(team.config.state_dir).revoke("alice")
        async with httpx.AsyncClient(timeout=30) as web:
            origin = person.urls[0].split("/setup/")[0]
            key = {"DEVTO_API_KEY": "alices-key"}
            tried = await web.post(person.urls[0], data=key, headers={"Origin": origin})
    assert tried.status_code == 400 and "revoked" in tried.text, tried.text
    assert not (team.config.state_dir / ".env").exists()
