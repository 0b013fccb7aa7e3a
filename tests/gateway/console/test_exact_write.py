"""The console shows a new post's title and tags (the list and the approval page), lets a
person edit them, refuses tags the platform refuses with its reason, and sends exactly what
was approved (issue 34, one exact write). Fast tier: the fake forum, plain HTTP against the
Starlette app in-process."""

from __future__ import annotations

import html

import pytest

from gwanjong_gateway.rules.approvals import ApprovalStatus
from tests.fakes.platform import FakePlatform
from tests.gateway.console.helpers import Served, approval, pending, post, sign_in

pytestmark = pytest.mark.anyio


async def test_title_and_tags_are_shown_checked_edited_and_sent_exactly(
    s: Served, forum: FakePlatform
) -> None:
    approval_id = await pending(s)
    csrf = await sign_in(s)
    listed = (await s.http.get("/approvals")).text
    assert "Title: <strong>A title</strong>" in listed  # the list names the post's title
    assert 'Tags: <span class="tags">(none)</span>' in listed
    page = (await s.http.get(f"/approvals/{approval_id}?edit=1")).text
    assert "<dt>Tags</dt><dd>" in page and 'name="title" rows="1">\nA title</textarea>' in page
    assert 'name="tags" value=""' in page and "<h2>Drafted from this post</h2>" in page
    waiting = await approval(s.gw, approval_id)
    # tags the platform refuses are refused with its reason
    edit = {"text": waiting.text, "title": waiting.title, "tags": "C++, rust"}
    done = await post(s, f"/approvals/{approval_id}", csrf, decision="approve", **edit)
    text = html.unescape(done.text)
    assert done.status_code == 409 and "The tag 'C++' is not allowed" in text, text
    assert "lowercase letters or digits" in text
    assert 'name="tags" value="C++, rust"' in text  # the person's tags, kept to fix
    still = await approval(s.gw, approval_id)
    assert still.status is ApprovalStatus.PENDING and forum.writes == []
    edit = {"text": waiting.text, "title": "A better title", "tags": "rust, async"}
    done = await post(s, f"/approvals/{approval_id}", csrf, decision="approve", **edit)
    assert done.status_code == 200 and "posted" in done.text, done.text
    assert '<code class="tag">rust</code> <code class="tag">async</code>' in done.text
    decided = await approval(s.gw, approval_id)
    assert decided.status is ApprovalStatus.APPROVED and decided.edited
    [written] = forum.written("write_post")
    assert (written.data["title"], written.data["tags"]) == ("A better title", ["rust", "async"])
    assert written.data["body"] == decided.text
    assert decided.write.arguments() == {k: written.data[k] for k in ("title", "body", "tags")}
