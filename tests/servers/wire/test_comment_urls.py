"""A comment read back carries its link (issue 38: a write settled by reading back keeps
the URL found). Our own write_comment's comment is found by get_comments with the very URL
the write answered (the contract's test_write_comment_follows_the_rule); Dev.to's comments
(it takes no comment writes) link to `<instance>/<user>/comment/<id>`."""

from __future__ import annotations

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from tests.mcp import call
from tests.platforms import SPECS

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py


async def test_devto_comments_link_to_their_page(sandbox: SandboxControl) -> None:
    post_id = sandbox.ids("devto")["rust-async"]
    async with Client(SPECS["devto"].build(sandbox.url)) as client:
        comments = (await call(client, "get_comments", post_id=post_id))["comments"]
    signed = [c for c in comments if c["author"]]
    assert signed, comments
    base = SPECS["devto"].settings(sandbox.url).base_url.rstrip("/")
    for c in signed:
        assert c["url"] == f"{base}/{c['author']}/comment/{c['id']}", c
