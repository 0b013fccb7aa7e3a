"""The one-approval page (URL-mode elicitation): a client that declared only URL mode is
sent a link (never a form); the person approves, edits or declines in a real HTTP request
to the gateway's listener on 127.0.0.1, and exactly what they approved is written, once.

Real parts: the gateway over MCP (in-memory transport, both protocol eras), the fake
platform of tests/fakes, the real listener, httpx as the browser.
"""

from __future__ import annotations

import dataclasses
import html
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from fastmcp import Client, FastMCP
from fastmcp.client.elicitation import ElicitResult
from mcp.types import ElicitRequestURLParams

from gwanjong_gateway.web import HEADERS
from gwanjong_shared.contract.errors import ErrorKind
from tests.fakes.clock import FakeClock
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import LINKS
from tests.gateway.approval_clients import (
    FOOTER,
    TEXT,
    approval_row,
    csrf_of,
    decide,
    parts,
    pending,
    url_only,
)
from tests.mcp import until

pytestmark = pytest.mark.anyio
EDITED = "Cancel scopes, edited by the person.\nSecond line." + FOOTER


def links(url: str = LINKS.url) -> FakePlatform:
    platform = FakePlatform(dataclasses.replace(LINKS, url=url))
    platform.add_post("k1", "Rust async cancellation", "How do you cancel?", author="ferris")
    return platform


class Person:
    """The client's side: the URL-mode requests it got, and the notifications."""

    def __init__(self) -> None:
        self.urls: list[str] = []
        self.ids: list[str | None] = []
        self.notes: list[Any] = []

    async def handler(self, message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        # a URL request, never a form: no schema, no response type
        assert isinstance(params, ElicitRequestURLParams), params
        assert response_type is None
        self.urls.append(params.url)
        self.ids.append(params.elicitation_id)
        return ElicitResult(action="accept")  # the client opened the page; the person decides there

    async def on_message(self, message: Any) -> None:
        self.notes.append(message)

    def completed(self) -> list[str]:
        return [
            str(n.params.elicitation_id)
            for n in self.notes
            if getattr(n, "method", "") == "notifications/elicitation/complete"
        ]


def client_for(server: FastMCP[Any], person: Person, mode: str) -> Client[Any]:
    return url_only(
        Client(
            server,
            mode=mode,
            elicitation_handler=person.handler,
            message_handler=person.on_message,
        )
    )


@asynccontextmanager
async def opened(
    tmp_path: Path,
    platform: FakePlatform,
    person: Person,
    mode: str,
    content: str = TEXT,
    **gateway: Any,
) -> AsyncIterator[tuple[httpx.AsyncClient, str, int]]:
    """A confirm-mode gateway on ``platform``, its URL-only client, and a comment of
    ``content`` waiting for a person: the person's browser, the page's link, its approval."""
    server = fake_gateway(tmp_path, platform, writes="confirm", **gateway)
    async with client_for(server, person, mode) as client, httpx.AsyncClient(timeout=60) as http:
        result = await pending(client, content)
        data = result.structured_content
        assert len(person.urls) == 1
        url = person.urls[0]
        _origin, approval_id, token = parts(url)
        assert data["approval"]["id"] == approval_id
        seen = str(result.content) + str(data) + str(result.meta)
        assert token not in seen and url not in seen  # the model never sees the link
        yield http, url, approval_id


async def test_url_only_client_approves_on_the_page_once_from_two_tabs(
    tmp_path: Path, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    platform, person = links(), Person()
    async with opened(tmp_path, platform, person, mode) as (http, url, approval_id):
        page = await http.get(url)
        assert page.status_code == 200
        for name, value in HEADERS.items():  # the one strict CSP, no-store, no Referer
            assert page.headers[name] == value, name
        assert HEADERS["cache-control"] == "no-store"
        assert "script-src 'self'" in HEADERS["content-security-policy"]
        assert TEXT in page.text and "a reply to" in page.text and "reddit" in page.text
        # ASCII: the platform's count (of its limit) is the plain length here
        assert f"{len(TEXT + FOOTER)} of 10,000 characters as reddit counts them" in page.text
        assert 'rel="noopener noreferrer"' in page.text and "<script" not in page.text
        style = await http.get(f"{parts(url)[0]}/static/console.css")  # the page's only load
        assert style.status_code == 200 and "pre.platform" in style.text
        assert platform.writes == []  # reading the page decides nothing
        codes: list[int] = []
        texts: list[str] = []

        async def approve() -> None:  # the box untouched
            reply = await decide(http, url, "approve", TEXT + FOOTER, csrf_of(page.text))
            codes.append(reply.status_code)
            texts.append(reply.text)

        async with anyio.create_task_group() as tg:  # two tabs, one click each: one write
            tg.start_soon(approve)
            tg.start_soon(approve)
        assert sorted(codes) == [200, 409], texts
        assert sum("Approved and sent." in t for t in texts) == 1
        replay = await decide(http, url, "approve", csrf=csrf_of(page.text))
        assert replay.status_code == 409 and "already approved" in replay.text
        again = await http.get(url)
        assert again.status_code == 200 and "already approved" in again.text
        assert "<form" not in again.text
        if mode == "legacy":  # the client hears that the page is done with
            await until(lambda: bool(person.completed()), 30, every=0.01)
            assert person.completed() == [person.ids[0]] == [f"approval-{approval_id}"]
    assert [w.action for w in platform.writes] == ["write_comment"]
    assert platform.writes[0].data["body"] == TEXT + FOOTER
    row = approval_row(tmp_path, approval_id)
    assert (row.status, row.channel, row.edited) == ("approved", "page", False)
    token = parts(url)[2]
    # every log but the test browser's own (httpx logs the URLs it fetches)
    ours = [r for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))]
    assert any("approval page: approval" in r.getMessage() for r in ours)
    assert token not in "\n".join(r.getMessage() for r in ours)


async def test_a_failed_write_says_so_and_is_not_retried_by_the_page(tmp_path: Path) -> None:
    platform, person = links(), Person()
    async with opened(tmp_path, platform, person, "legacy") as (http, url, _approval_id):
        csrf = csrf_of((await http.get(url)).text)
        platform.fail("write_comment", ErrorKind.INVALID_INPUT)  # the platform refuses the write
        failed = await decide(http, url, "approve", csrf=csrf)
        assert failed.status_code == 502, failed.text
        assert "<form" not in failed.text  # no button to send it again from here
        assert 'class="error"' in failed.text and "Approved and sent" not in failed.text
        again = await decide(http, url, "approve", csrf=csrf)
        assert again.status_code == 409
    assert platform.writes == []


async def test_decline_on_the_page_sends_nothing(tmp_path: Path, mode: str) -> None:
    platform, person = links(), Person()
    async with opened(tmp_path, platform, person, mode) as (http, url, approval_id):
        csrf = csrf_of((await http.get(url)).text)
        done = await decide(http, url, "decline")
        assert done.status_code == 200 and "Declined: nothing was sent." in done.text
        late = await decide(http, url, "approve", csrf=csrf)
        assert late.status_code == 409 and "already declined" in late.text
    assert platform.writes == []
    row = approval_row(tmp_path, approval_id)
    assert (row.status, row.channel) == ("declined", "page")


async def test_foreign_origin_host_csrf_and_tokens_are_refused_and_an_edit_is_sent(
    tmp_path: Path, mode: str
) -> None:
    platform, person = links(), Person()
    async with opened(tmp_path, platform, person, mode) as (http, url, approval_id):
        origin, _id, _token = parts(url)
        page = await http.get(url)
        csrf = csrf_of(page.text)
        form = {"decision": "approve", "csrf": csrf}
        own = {"Origin": origin}
        wrong = url[:-4] + ("AAAA" if not url.endswith("AAAA") else "BBBB")
        other_id = url.replace(f"/approval/{approval_id}/", f"/approval/{approval_id + 1}/")

        async def post(target: str = url, headers: dict[str, str] = own, **body: Any) -> int:
            return (await http.post(target, headers=headers, **body)).status_code

        async def get(target: str = url, **kw: Any) -> int:
            return (await http.get(target, **kw)).status_code

        evil = {"Origin": "http://evil.example"}
        refusals = {  # each request: (what it got, what it must get)
            "foreign origin": (await post(data=form, headers=evil), 403),
            "null origin": (await post(data=form, headers={"Origin": "null"}), 403),
            "rebound host": (await post(data=form, headers={**own, "Host": "evil.example"}), 421),
            "rebound host get": (await get(headers={"Host": "localhost"}), 421),
            "missing csrf": (await post(data={"decision": "approve"}), 403),
            "wrong csrf": (await post(data={**form, "csrf": "0" * 64}), 403),
            "bad token": (await post(wrong, data=form), 404),
            "bad token get": (await get(wrong), 404),
            "token of another id": (await post(other_id, data=form), 404),
            "no decision": (await post(data={"csrf": csrf}), 400),
            "not a form": (await post(json=form), 415),
            "put": ((await http.put(url, data=form, headers=own)).status_code, 405),
        }
        assert {k: got for k, (got, _) in refusals.items()} == {
            k: want for k, (_, want) in refusals.items()
        }
        assert platform.writes == []
        assert approval_row(tmp_path, approval_id).status == "pending"
        # the real page still works after all that, and an edit on it is what is sent
        refused = await decide(http, url, "approve", text="No footer <any> more.")
        assert refused.status_code == 400 and "disclosure footer" in refused.text
        assert "\nNo footer &lt;any&gt; more.</textarea>" in refused.text  # their text, kept
        assert platform.writes == []
        done = await decide(http, url, "approve", text=EDITED)
        assert done.status_code == 200 and "Approved and sent." in done.text
    assert [w.data["body"] for w in platform.writes] == [EDITED]
    row = approval_row(tmp_path, approval_id)
    assert (row.status, row.channel, row.edited) == ("approved", "page", True)


async def test_hostile_text_and_links_render_inert(tmp_path: Path, mode: str) -> None:
    platform, person = links(url="javascript:alert(1)//x"), Person()
    hostile = (
        'Fine.</div><script>alert("x")</script><img src=x onerror=alert(1)>'
        '\u200bevil\u2060 <a href="javascript:alert(2)">click</a>'
    )
    async with opened(tmp_path, platform, person, mode, hostile) as (http, url, _approval_id):
        page = (await http.get(url)).text
        done = await decide(http, url, "approve", text=hostile + FOOTER)
        assert done.status_code == 200, done.text
    for html_text in (page, done.text):
        assert "<script" not in html_text and "<img" not in html_text
        assert 'href="javascript:' not in html_text.lower()
        assert "\u200b" not in html_text.split("<textarea", 1)[0]  # shown as a mark instead
        assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html_text
        assert "⟦U+200B⟧evil⟦U+2060⟧" in html_text
        assert "javascript:alert(1)//x" in html_text and "(not a web link)" in html_text
    assert "2 invisible characters, marked" in page
    assert [w.data["body"] for w in platform.writes] == [hostile + FOOTER]  # sent exactly


class WaitingPerson(Person):
    """A client that keeps the URL request open until the person has decided on the page
    (some clients answer it only when the page is done)."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        super().__init__()
        self.http = http
        self.outcome: list[httpx.Response] = []

    async def handler(self, message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        self.urls.append(params.url)
        with anyio.fail_after(30):  # only catches a hang (the strike held the target's lock)
            self.outcome.append(await decide(self.http, params.url, "approve"))
        return ElicitResult(action="accept")


async def test_approving_while_the_client_still_holds_the_link_open(tmp_path: Path) -> None:
    platform = links()
    server = fake_gateway(tmp_path, platform, writes="confirm")
    async with httpx.AsyncClient(timeout=60) as http:
        person = WaitingPerson(http)
        async with client_for(server, person, "legacy") as client:
            data = (await pending(client)).structured_content
    assert person.outcome[0].status_code == 200, person.outcome[0].text
    # the page made the write; the strike that asked reports the approval it opened
    assert data["status"] == "pending_approval", data
    assert [w.data["body"] for w in platform.writes] == [TEXT + FOOTER]
    assert approval_row(tmp_path, data["approval"]["id"]).status == "approved"


async def test_a_link_sent_to_a_client_is_short_lived(tmp_path: Path) -> None:
    """The page link decides its one approval for 15 minutes; after that it decides
    nothing (410) and says where the approval still waits; nothing is sent."""
    clock, platform, person = FakeClock(), links(), Person()
    gateway = {"clock": clock, "wall": clock.time}
    async with opened(tmp_path, platform, person, "legacy", **gateway) as (http, url, approval_id):
        page = await http.get(url)
        assert page.status_code == 200
        clock.advance(15 * 60 + 1)
        late = await http.get(url)
        assert late.status_code == 410 and f"review show a{approval_id}" in late.text
        refused = await decide(http, url, "approve", csrf=csrf_of(page.text))
        assert refused.status_code == 410
    assert platform.writes == []
    assert approval_row(tmp_path, approval_id).status == "pending"


async def test_a_page_links_token_approves_nothing_through_the_app_only_tool(
    tmp_path: Path,
) -> None:
    """The link is for a person's browser: the token in it must not approve through the
    app-only tool `approval_decide` from a client that renders no card (a model shown the
    link could call it: no page, no Origin, no CSRF, and no 15 minutes)."""
    from gwanjong_gateway.channels.apps import APP_TOOL
    from tests.mcp import error_of

    clock, platform, person = FakeClock(), links(), Person()
    server = fake_gateway(tmp_path, platform, writes="confirm", clock=clock, wall=clock.time)
    async with client_for(server, person, "legacy") as model:
        await pending(model)
        _origin, approval_id, token = parts(person.urls[0])
        clock.advance(15 * 60 + 1)  # the page itself now answers 410
        args = {"approval_id": approval_id, "token": token}
        tried = await error_of(model, APP_TOOL, **args, decision="approve")
        assert tried.startswith("not_found"), tried
    assert platform.writes == []
    assert approval_row(tmp_path, approval_id).status == "pending"


async def test_a_page_approved_as_shown_sends_what_it_showed_and_is_no_edit(
    tmp_path: Path, mode: str
) -> None:
    """Whitespace at either end of the text or of a configured footer: the page trims what
    a person sends, so an untrimmed text would be recorded as their edit and sent trimmed."""
    platform, person = links(), Person()
    footer = {"reddit": {"disclosure": "\n\n-- drafted by a bot  \n"}}
    async with opened(tmp_path, platform, person, mode, f"  {TEXT}\n", others=footer) as (
        http,
        url,
        approval_id,
    ):
        page = (await http.get(url)).text
        shown = html.unescape(page.split("<textarea", 1)[1].split(">", 1)[1].split("</textarea")[0])
        shown = shown.removeprefix("\n")  # a browser drops the newline right after <textarea>
        done = await decide(http, url, "approve", text=shown)
        assert done.status_code == 200, done.text
    assert [w.data["body"] for w in platform.writes] == [f"{TEXT}\n\n-- drafted by a bot"]
    assert shown == platform.writes[0].data["body"]
    assert approval_row(tmp_path, approval_id).edited is False
