"""A comment read back carries its link (issue 38: a write settled by reading back keeps
the URL found): through each real server and SDK over HTTP to the sandbox, the comment our
own write_comment made is found by get_comments with the very URL the write answered, and
Dev.to's comments (it takes no comment writes) link to `<instance>/<user>/comment/<id>`."""

from __future__ import annotations

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from tests.mcp import call
from tests.platforms import SPECS

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py

BODY = "Thanks for asking: one gateway in front of all four keeps the rules in one place."


@pytest.mark.parametrize("name", ["bluesky", "reddit", "twitter"])
async def test_our_comment_reads_back_with_the_url_its_write_gave(
    name: str, sandbox: SandboxControl
) -> None:
    post_id = sandbox.ids(name)["summons-me"]
    async with Client(SPECS[name].build(sandbox.url)) as client:
        written = await call(client, "write_comment", post_id=post_id, body=BODY)
        comments = (await call(client, "get_comments", post_id=post_id, limit=1000))["comments"]
    [ours] = [c for c in comments if c["id"] == written["id"]]
    assert written["url"] and ours["url"] == written["url"], (ours, written)


async def test_devto_comments_link_to_their_page(sandbox: SandboxControl) -> None:
    post_id = sandbox.ids("devto")["rust-async"]
    async with Client(SPECS["devto"].build(sandbox.url)) as client:
        comments = (await call(client, "get_comments", post_id=post_id))["comments"]
    signed = [c for c in comments if c["author"]]
    assert signed, comments
    base = SPECS["devto"].settings(sandbox.url).base_url.rstrip("/")
    for c in signed:
        assert c["url"] == f"{base}/{c['author']}/comment/{c['id']}", c
