"""A Mastodon post whose answer was lost is read back through search (kit/once.py): found,
the repeat answers it; absent, it is sent again. Absent is only safe when the listing held
every match, and a real instance's listings are rude: a page cut short is not the last,
our own statuses run past one page, and a proxy may ignore offset. Real Mastodon.py over
HTTP to the sandbox, the server's hold on an injected clock."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from fastmcp import Client

from gwanjong_mastodon.adapter import OURS_PAGES, MastodonAdapter
from gwanjong_sandbox.control import SandboxControl
from gwanjong_sandbox.mastodon.world import HUMAN_TOKEN, TOKEN
from gwanjong_shared.kit.once import HOLD_S
from gwanjong_shared.kit.server import build_platform_server
from tests.fakes.clock import FakeClock
from tests.mcp import error_of
from tests.platforms import SPECS
from tests.servers.inbox import paths

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]
SPEC = SPECS["mastodon"]
JSON = "application/json"
SENT = "POST /api/v1/statuses"


async def _post(web: httpx.AsyncClient, token: str, texts: list[str]) -> None:
    for text in texts:
        made = await web.post(
            "/api/v1/statuses", data={"status": text}, headers={"Authorization": f"Bearer {token}"}
        )
        assert made.status_code == 200, made.text


async def _first_page(web: httpx.AsyncClient, path: str, **params: str) -> str:
    page = await web.get(path, params=params, headers={"Authorization": f"Bearer {TOKEN}"})
    return page.text


@pytest.mark.parametrize("case", ["tag-page-cut-short", "ours-past-one-page", "offset-ignored"])
async def test_a_lost_post_missing_from_a_listing_cut_short_is_not_sent_again(
    sandbox: SandboxControl, case: str
) -> None:
    """Our post landed (its answer lost), then the world moved on before the repeat read it
    back. The tag timeline's first page came back short (the instance dropped statuses it
    may not show after reading the page), though ours lay on the next, and our account had
    posted more than it reads; our account posted 45
    statuses since, so ours was not among our latest 40, on an instance without
    Elasticsearch (its search finds no statuses); a proxy ignored offset, answering others'
    posts with the same words on every page, and our account had posted more than it reads.
    Each read as all there is, so the repeat was sent again (Mastodon answered it with the
    first only because its Idempotency-Key, kept an hour, had not expired). Now it is found
    (read on past the short page, or back through our statuses), or, where nothing covers
    it, unsure: a person checks."""
    write = {"title": "", "body": "Readback notes on a lost status, written once."}
    if case == "tag-page-cut-short":
        write = {"title": "#ReadbackTag", "body": "Ours, written once."}  # read back by its title
    clock = FakeClock(wall=time.time())
    adapter = MastodonAdapter(SPEC.settings(sandbox.url))
    server = build_platform_server(adapter, call_timeout_s=60, wall=clock.time)
    async with Client(server) as client, httpx.AsyncClient(base_url=sandbox.url) as web:
        sandbox.fault("mastodon", "apply_then_status", status=502, method="POST", match=SENT[5:])
        assert "may have been written" in await error_of(client, "write_post", **write)
        (first,) = sandbox.writes("mastodon")
        if case == "tag-page-cut-short":
            await _post(web, HUMAN_TOKEN, [f"Note {i} on #ReadbackTag" for i in range(45)])
            await _post(web, TOKEN, [f"Status {i} of ours." for i in range(OURS_PAGES * 40 + 5)])
            page = json.loads(await _first_page(web, "/api/v1/timelines/tag/readbacktag"))
            body = json.dumps(page[:15])  # 40 asked, 25 of them dropped
            sandbox.fault(
                "mastodon", status=200, match="/timelines/tag/", body=body, content_type=JSON
            )
        elif case == "ours-past-one-page":
            await _post(web, TOKEN, [f"Status {i} of ours." for i in range(45)])
            nothing = json.dumps({"accounts": [], "statuses": [], "hashtags": []})
            sandbox.fault(
                "mastodon",
                status=200,
                match="/api/v2/search",
                body=nothing,
                content_type=JSON,
                count=50,
            )
        else:
            await _post(web, HUMAN_TOKEN, [f"{write['body']} Take {i}." for i in range(25)])
            await _post(web, TOKEN, [f"Status {i} of ours." for i in range(OURS_PAGES * 40 + 5)])
            page = await _first_page(web, "/api/v2/search", q="Readback notes on a lost status")
            sandbox.fault(
                "mastodon",
                status=200,
                match="/api/v2/search",
                body=page,
                content_type=JSON,
                count=50,
            )
        sent = paths(sandbox, "mastodon")[SENT]
        clock.advance(HOLD_S)
        again = await client.call_tool("write_post", write, raise_on_error=False)
    assert paths(sandbox, "mastodon")[SENT] == sent, "the write was sent a second time"
    text = again.content[0].text  # type: ignore[union-attr]
    if case == "offset-ignored":
        assert text.startswith("unavailable: ") and "a person must check" in text, text
    else:
        assert not again.is_error and json.loads(text)["id"] == first["data"]["id"], text


async def test_a_lost_post_a_tag_timeline_never_shows_is_read_back_from_our_statuses(
    sandbox: SandboxControl,
) -> None:
    """A tag's timeline leaves out a limited (silenced) account's statuses, and those in
    languages the reader filters out (PublicFeed), ours too: a post titled with one #tag,
    read back there alone, was absent to its end, and sent again. Our own statuses holding
    the tag are read too, as for words."""
    write = {"title": "#HiddenTag", "body": "Ours, from a limited account."}
    clock = FakeClock(wall=time.time())
    adapter = MastodonAdapter(SPEC.settings(sandbox.url))
    server = build_platform_server(adapter, call_timeout_s=60, wall=clock.time)
    async with Client(server) as client, httpx.AsyncClient(base_url=sandbox.url) as web:
        sandbox.fault("mastodon", "apply_then_status", status=502, method="POST", match=SENT[5:])
        assert "may have been written" in await error_of(client, "write_post", **write)
        (first,) = sandbox.writes("mastodon")
        await _post(web, HUMAN_TOKEN, [f"Note {i} on #HiddenTag" for i in range(10)])
        page = json.loads(await _first_page(web, "/api/v1/timelines/tag/hiddentag"))
        shown = [s for s in page if s["id"] != first["data"]["id"]]
        for body in (json.dumps(shown), "[]"):  # the timeline as the instance shows it to us
            sandbox.fault(
                "mastodon", status=200, match="/timelines/tag/", body=body, content_type=JSON
            )
        sent = paths(sandbox, "mastodon")[SENT]
        clock.advance(HOLD_S)
        again = await client.call_tool("write_post", write, raise_on_error=False)
    assert paths(sandbox, "mastodon")[SENT] == sent, "the write was sent a second time"
    text = again.content[0].text  # type: ignore[union-attr]
    assert not again.is_error and json.loads(text)["id"] == first["data"]["id"], text
