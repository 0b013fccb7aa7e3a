"""Clients for the approval page and card tests: a real fastmcp Client whose session
declares only URL-mode elicitation, or the MCP Apps extension; the browser's part (GET the
page, POST its form) with httpx against the real listener on 127.0.0.1."""

from __future__ import annotations

import dataclasses
import re
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
from fastmcp import Client, FastMCP
from fastmcp.apps.config import UI_EXTENSION_ID, UI_MIME_TYPE
from fastmcp.client.transports.base import TransportOptions, VersionAwareClientSession
from mcp.client import advertise
from mcp.types import ClientCapabilities, ElicitationCapability, UrlElicitationCapability

from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import Approval
from gwanjong_shared.contract import Limit
from tests.fakes.profiles import LINKS
from tests.gateway import helpers

LINK = re.compile(r"^(http://127\.0\.0\.1:\d+)/approval/(\d+)/([A-Za-z0-9_-]{32,86})$")
CSRF = re.compile(r'name="csrf" value="([0-9a-f]{64})"')
UI = [advertise(UI_EXTENSION_ID, {"mimeTypes": [UI_MIME_TYPE]})]
TEXT = "Cancel scopes make the await points explicit."
FOOTER = "\n\n^(an automated reply, fake links)"  # the LINKS profile's
#: LINKS counting a comment as a short-post network does: graphemes, 300 to one
COUNTED = dataclasses.replace(
    LINKS, limits={**LINKS.limits, "comment": Limit(max=300, unit="graphemes")}
)
#: a text whose graphemes are fewer than its code points: an accent mark, a family, a flag
CLUSTERS = "Cafe\u0301 for the \U0001f469\u200d\U0001f469\u200d\U0001f467 on \U0001f1f0\U0001f1f7."


class UrlOnlySession(VersionAwareClientSession):
    """A real client session that declares only URL-mode elicitation."""

    def _build_capabilities(self, version: str) -> ClientCapabilities:
        caps = super()._build_capabilities(version)
        return caps.model_copy(
            update={"elicitation": ElicitationCapability(url=UrlElicitationCapability())}
        )


def url_only(client: Client[Any]) -> Client[Any]:
    client._transport_options = TransportOptions(session_class=UrlOnlySession)  # type: ignore[reportPrivateUsage]
    return client


def apps_host(server: FastMCP[Any] | Any, mode: str = "auto", **kwargs: Any) -> Client[Any]:
    """A client that declares the MCP Apps extension (and no elicitation)."""
    return Client(server, mode=mode, extensions=UI, **kwargs)


def parts(url: str) -> tuple[str, int, str]:
    """(origin, approval id, token) of a page link; fails on any other shape."""
    match = LINK.match(url)
    assert match, url
    return match.group(1), int(match.group(2)), match.group(3)


def csrf_of(page: str) -> str:
    match = CSRF.search(page)
    assert match, page
    return match.group(1)


async def decide(
    http: httpx.AsyncClient,
    url: str,
    decision: str,
    text: str | None = None,
    csrf: str | None = None,
    **headers: str,
) -> httpx.Response:
    """The browser: load the page, then send its form (Origin: the page's own)."""
    page = await http.get(url)
    form = {"decision": decision, "csrf": csrf if csrf is not None else csrf_of(page.text)}
    if text is not None:
        form["text"] = text.replace("\n", "\r\n")  # as a browser sends a textarea
    return await http.post(url, data=form, headers={"Origin": parts(url)[0], **headers})


def approval_row(state_dir: Path, approval_id: int) -> Approval:
    with closing(StrikeStore(state_dir / "gwanjong.db")) as store:
        row = store.approval(approval_id)
    assert row is not None
    return row


async def pending(client: Client[Any], content: str = TEXT) -> Any:
    """A comment of ``content`` on the fake's reddit (LINKS) waiting for a person: the
    strike's whole result."""
    oid = await helpers.drafted(client, "rust async cancellation", "Rust async", "reddit")
    args = {"opportunity_id": oid, "action": "comment", "content": content}
    result = await client.call_tool("strike", args)
    data = result.structured_content
    assert data is not None and data["status"] == "pending_approval", data
    return result
