"""Real wire shapes the sandbox reproduces (issue 13), through each real server and SDK:
quoted tweets riding in X's includes, non-JSON error bodies, Dev.to front matter with CRLF,
a CDN's empty 403, closed subreddits."""

from __future__ import annotations

import json

import pytest
from fastmcp import Client

from gwanjong_devto.adapter import markdown_body
from gwanjong_sandbox.control import SandboxControl
from tests.mcp import call, error_of
from tests.platforms import SPECS
from tests.specs.twitter import READERS

pytestmark = pytest.mark.anyio


# -- X ---------------------------------------------------------------------------------


@pytest.mark.parametrize("env", READERS.values(), ids=READERS)
async def test_x_quoted_posts_in_includes_are_not_replies(
    sandbox: SandboxControl, env: dict[str, str]
) -> None:
    ids = sandbox.ids("twitter")
    async with Client(SPECS["twitter"].build(sandbox.url, **env)) as client:
        found = await call(client, "get_comments", post_id=ids["x-quoting-thread"])
    comments = found["comments"]
    # Two replies; the post one of them quotes (another conversation) is not a third.
    assert [c["author"] for c in comments] == ["ops_omar", "quote_quinn"]
    assert ids["x-my-post"] not in {c["id"] for c in comments}
    assert all(c["depth"] == 0 and c["parent_id"] is None for c in comments)


async def test_x_text_plain_429_keeps_rate_limited_and_the_wait(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("twitter")
    sandbox.fault("twitter", status=429, retry_after=20, body="Rate limit exceeded\n", count=5)
    async with Client(SPECS["twitter"].build(sandbox.url)) as client:
        text = await error_of(client, "get_post", post_id=ids["rust-async"])
    assert text.startswith("rate_limited retry_after="), text
    assert 18 <= int(text.split("=", 1)[1].split(":", 1)[0]) <= 21
    assert "Could not reach" not in text


async def test_x_html_404_is_not_found(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("twitter")
    page = "<!DOCTYPE html><html><head><title>Page not found</title></head><body></body></html>"
    html = {"body": page, "content_type": "text/html; charset=utf-8", "count": 50}
    sandbox.fault("twitter", status=404, **html)
    async with Client(SPECS["twitter"].build(sandbox.url)) as client:
        text = await error_of(client, "get_post", post_id=ids["rust-async"])
        trends = await error_of(client, "trending")  # a read by no id: no post to name
        sandbox.clear_faults()
        sandbox.fault("twitter", status=503, retry_after=9, **html)
        down = await error_of(client, "get_post", post_id=ids["rust-async"])
    assert text.startswith("not_found: X has no such post"), text
    assert "base URL" in trends and "such post" not in trends, trends
    assert down.startswith("unavailable: ") and "Wait 9 seconds" in down, down


# -- Dev.to ----------------------------------------------------------------------------


async def test_devto_front_matter_is_cut_and_crlf_normalised(sandbox: SandboxControl) -> None:
    post_id = sandbox.ids("devto")["front-matter"]
    async with Client(SPECS["devto"].build(sandbox.url)) as client:
        post = await call(client, "get_post", post_id=post_id)
    assert post["body"] == (
        "Every line of the file showed as changed.\n\nThe culprit was CRLF from a Windows "
        "editor; a .gitattributes rule fixed it."
    )
    assert post["title"] == "Why my diffs were all red: line endings"


async def test_devto_edge_403_is_unavailable_not_credentials(sandbox: SandboxControl) -> None:
    ids = sandbox.ids("devto")
    sandbox.fault("devto", status=403, body="", count=5)
    async with Client(SPECS["devto"].build(sandbox.url)) as client:
        edge = await error_of(client, "get_post", post_id=ids["rust-async"])
        sandbox.clear_faults()
        sandbox.fault("devto", status=403)  # Forem's own JSON 403: a credentials problem
        forem = await error_of(client, "get_post", post_id=ids["rust-async"])
    assert edge.startswith("unavailable: ") and "edge" in edge, edge
    assert "refused our credentials" not in edge
    assert forem.startswith("auth: "), forem


# -- Reddit ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reason", "word"), [("quarantined", "quarantined"), ("private", "private")]
)
async def test_reddit_closed_subreddit_403_says_so(
    sandbox: SandboxControl, reason: str, word: str
) -> None:
    ids = sandbox.ids("reddit")
    body = {"reason": reason, "message": "Forbidden", "error": 403}
    if reason == "quarantined":
        body["quarantine_message"] = "This community is quarantined."
    sandbox.fault(
        "reddit",
        status=403,
        body=json.dumps(body),
        content_type="application/json; charset=UTF-8",
        match="/comments/",
        count=5,
    )
    async with Client(SPECS["reddit"].build(sandbox.url)) as client:
        text = await error_of(client, "get_post", post_id=ids["rust-async"])
    assert text.startswith("not_supported: "), text
    assert word in text and "credentials" not in text.replace("our credentials are fine", "")


def test_front_matter_is_cut_only_at_the_top() -> None:
    assert markdown_body("---\r\ntitle: T\r\n---\r\n\r\nBody\r\nline") == "Body\nline"
    assert markdown_body("\ufeff---\ntitle: T\npublished: true\n---\nBody") == "Body"
    # A thematic break further down, or an unclosed block, is the article's own text.
    assert markdown_body("Intro\n\n---\n\nMore\n---\n") == "Intro\n\n---\n\nMore\n---\n"
    assert markdown_body("---\nno end") == "---\nno end"


@pytest.mark.parametrize("platform", ["reddit", "twitter", "bluesky", "mastodon"])
@pytest.mark.parametrize(
    ("body", "content_type"),
    [("", "text/plain"), ("<html><body>blocked</body></html>", "text/html; charset=utf-8")],
    ids=["empty", "html"],
)
async def test_edge_403_is_unavailable_not_credentials(
    sandbox: SandboxControl, platform: str, body: str, content_type: str
) -> None:
    """A CDN's 403 (empty or an HTML page, no platform error body) is not about our keys."""
    post_id = sandbox.ids(platform)["rust-async"]
    async with Client(SPECS[platform].build(sandbox.url)) as client:
        await call(client, "get_post", post_id=post_id)  # signed in: the block comes later
        sandbox.fault(platform, status=403, body=body, content_type=content_type, count=10)
        text = await error_of(client, "get_post", post_id=post_id)
    assert text.startswith("unavailable: "), text
