"""Each server sends a write once, whatever happens to its answer; its reads are still read
again where its stack retries them (kit/once.py, docs/develop/contract.md). The sandbox
applies a write, then loses its answer (a 5xx from "a proxy", a dropped connection, an answer
later than the server waits for); the server's write tool, through its real SDK over HTTP,
must send it once and answer an unsure kind that says it may have been written. A count=1
fault means any layer that resent the request would get it applied a second time: two writes
in the log.

The stacks: Dev.to (httpx), Bluesky (atproto on httpx), Mastodon (Mastodon.py over requests,
max_retries=0), X (tweepy on aiohttp), Reddit (asyncpraw on aiohttp)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract.errors import UNSURE, parse_error
from tests.mcp import call, error_of
from tests.platforms import SPECS
from tests.specs.twitter import READERS

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]

#: each platform's write_post endpoint (a path fragment; the fault also needs POST)
WRITE_PATH = {
    "devto": "/api/articles",
    "bluesky": "com.atproto.repo.createRecord",
    "twitter": "/2/tweets",
    "reddit": "/api/submit",
    "mastodon": "/api/v1/statuses",
}


@pytest.mark.parametrize("platform", list(WRITE_PATH))
@pytest.mark.parametrize(
    ("kind", "fields"),
    [
        ("apply_then_status", {"status": 502}),
        ("apply_then_drop", {}),
        ("apply_then_cut", {}),
        ("hang_after", {"seconds": 5}),  # written, answered after our 1 s bound
    ],
    ids=["5xx-after-write", "dropped-after-write", "cut-mid-answer", "late-after-write"],
)
async def test_a_write_whose_answer_is_lost_is_sent_once(
    sandbox: SandboxControl, platform: str, kind: str, fields: dict[str, Any]
) -> None:
    """The model's repeat of it (same input) is not sent either: it is answered with the
    write itself, read back."""
    spec = SPECS[platform]
    write = {"title": "Lost answer", "body": "Written once, whatever is lost."}
    async with Client(spec.build(sandbox.url, **spec.timeouts(1))) as client:
        sandbox.fault(platform, kind, method="POST", match=WRITE_PATH[platform], count=1, **fields)
        result = await client.call_tool("write_post", write, raise_on_error=False)
        again = await call(client, "write_post", **write)
    posts = [w for w in sandbox.writes(platform) if w["action"] == "write_post"]
    assert len(posts) == 1, f"the write was sent {len(posts)} times"
    assert again["id"] == (posts[0]["data"].get("uri") or posts[0]["data"]["id"]), again
    assert result.is_error, f"a lost answer reported as {result.structured_content}"
    text = result.content[0].text  # type: ignore[union-attr]
    error_kind, message, _ = parse_error(text)
    assert error_kind in UNSURE, text
    assert "may have been written" in message and "not sent again" in message, text


@pytest.mark.parametrize(
    ("platform", "shows"),
    # Dev.to and Bluesky read our own posts without lag (/api/articles/me/published, our
    # repo on the PDS): always found
    [(p, True) for p in ("devto", "bluesky", "reddit", "twitter", "mastodon")]
    + [(p, False) for p in ("reddit", "twitter")],
    ids=lambda v: v if isinstance(v, str) else "found" if v else "not-showing-yet",
)
async def test_a_lost_write_is_still_held_after_a_restart(
    sandbox: SandboxControl, platform: str, shows: bool, tmp_path: Path
) -> None:
    """A server used alone (no gateway) restarted between a write whose answer was lost and
    the model's repeat of it: the repeat is read back first, as within one process. Found,
    it answers the first write; not showing yet (the platform's reads lag), it is refused as
    unsure. Either way nothing is sent again."""
    spec = SPECS[platform]
    env = {f"{platform.upper()}_HOLD_FILE": str(tmp_path / "hold.db")}
    write = {"title": "Lost before a restart", "body": "Held across a restart, not sent twice."}
    if not shows:
        sandbox.fault(platform, kind="lag", seconds=600)
    async with Client(spec.build(sandbox.url, **env)) as client:
        sandbox.fault(platform, "apply_then_status", method="POST", match=WRITE_PATH[platform])
        assert "may have been written" in await error_of(client, "write_post", **write)
    async with Client(spec.build(sandbox.url, **env)) as client:  # the server started anew
        again = await client.call_tool("write_post", write, raise_on_error=False)
    posts = [w for w in sandbox.writes(platform) if w["action"] == "write_post"]
    assert len(posts) == 1, f"the write was sent {len(posts)} times"
    text = again.content[0].text  # type: ignore[union-attr]
    if shows:
        first = posts[0]["data"].get("uri") or posts[0]["data"]["id"]
        assert not again.is_error and json.loads(text)["id"] == first, text
    else:
        assert text.startswith("unavailable: ") and "not sent again" in text, text
        assert "read it back with search (not there just now)" in text, text


async def read_facing(
    sandbox: SandboxControl, platform: str, kind: str, **fields: Any
) -> tuple[int, Any]:
    """get_post of a seeded post with one fault armed on reads: (the GET requests the
    server sent, the tool's result)."""
    post_id = sandbox.ids(platform)["rust-async"]
    async with Client(SPECS[platform].build(sandbox.url)) as client:
        await client.call_tool("get_post", {"post_id": post_id})  # signed in, warm
        before = _gets(sandbox, platform)
        sandbox.fault(platform, kind, method="GET", count=1, **fields)
        result = await client.call_tool("get_post", {"post_id": post_id}, raise_on_error=False)
    return _gets(sandbox, platform) - before, result


def _gets(sandbox: SandboxControl, platform: str) -> int:
    paths = sandbox.request_paths().items()
    return sum(n for key, n in paths if key.startswith(f"{platform} GET "))


@pytest.mark.parametrize("platform", ["devto", "bluesky", "mastodon"])
async def test_a_read_facing_a_5xx_fails_as_a_read(sandbox: SandboxControl, platform: str) -> None:
    """httpx (and requests, max_retries=0) resend nothing, reads included; the policy tells
    a read's 5xx from a write's: nothing in its failure says a write may have landed."""
    sent, result = await read_facing(sandbox, platform, "status", status=502)
    assert sent == 1
    assert result.is_error
    text = result.content[0].text
    assert text.startswith("unavailable: ") and "may have been written" not in text, text


async def test_a_reddit_read_facing_a_5xx_is_still_retried(sandbox: SandboxControl) -> None:
    sent, result = await read_facing(sandbox, "reddit", "status", status=502)
    assert not result.is_error and sent == 2  # asyncprawcore's retry (REDDIT_RETRIES)


@pytest.mark.parametrize("platform", ["reddit", "twitter"])
async def test_a_read_whose_connection_dropped_is_read_again(
    sandbox: SandboxControl, platform: str
) -> None:
    sent, result = await read_facing(sandbox, platform, "apply_then_drop")
    assert not result.is_error and sent == 2  # aiohttp resends an idempotent request


@pytest.mark.parametrize(
    ("platform", "match", "count"),
    # Both sign in twice: write_post's own validate reads the account's `bot` label (Bluesky)
    # or r/Bottiquette's lists (Reddit), a failure there left to the write, then the write
    [("bluesky", "server.createSession", 2), ("reddit", "/api/v1/access_token", 2)],
)
async def test_a_sign_in_whose_answer_is_lost_is_not_a_write(
    sandbox: SandboxControl, platform: str, match: str, count: int
) -> None:
    """A sign-in POST whose answer is lost writes nothing: write_post says the sign-in
    failed (not "may have been written"), and nothing reached the write endpoint."""
    async with Client(SPECS[platform].build(sandbox.url)) as client:
        sandbox.fault(
            platform, "apply_then_status", status=502, method="POST", match=match, count=count
        )
        text = await error_of(client, "write_post", title="Never sent", body="No session.")
    assert text.startswith("unavailable: ") and "sign-in" in text, text
    assert "may have been written" not in text, text
    assert sandbox.writes(platform) == []


async def test_a_reddit_write_answered_408_is_not_resent(sandbox: SandboxControl) -> None:
    """asyncprawcore resends on 408 (Request Timeout) as on a 5xx, POST included: a proxy's
    408 after the platform applied the write must not make it land twice."""
    async with Client(SPECS["reddit"].build(sandbox.url)) as client:
        sandbox.fault(
            "reddit", "apply_then_status", status=408, method="POST", match="/api/submit", count=1
        )
        text = await error_of(client, "write_post", title="Lost answer", body="Sent once.")
    posts = [w for w in sandbox.writes("reddit") if w["action"] == "write_post"]
    assert len(posts) == 1, f"the write was sent {len(posts)} times"
    error_kind, message, _ = parse_error(text)
    assert error_kind in UNSURE, text
    assert "may have been written" in message and "not sent again" in message, text


@pytest.mark.parametrize("platform", list(WRITE_PATH))
@pytest.mark.parametrize(
    ("body", "content_type"),
    [("<html><body>OK</body></html>", "text/html; charset=utf-8"), ("{}", "application/json")],
    ids=["html", "json-without-the-write"],
)
async def test_a_write_answered_2xx_without_json_is_unsure(
    sandbox: SandboxControl, platform: str, body: str, content_type: str
) -> None:
    """The write was applied and answered 200, but the body is not the platform's answer (a
    proxy's page or JSON): it may have been written, so the answer must not invite a resend
    (nor say posted, with no id)."""
    async with Client(SPECS[platform].build(sandbox.url)) as client:
        sandbox.fault(
            platform,
            "apply_then_status",
            status=200,
            body=body,
            content_type=content_type,
            method="POST",
            match=WRITE_PATH[platform],
            count=1,
        )
        text = await error_of(client, "write_post", title="Garbled", body="Sent once.")
    assert len([w for w in sandbox.writes(platform) if w["action"] == "write_post"]) == 1
    error_kind, message, _ = parse_error(text)
    assert error_kind in UNSURE, text
    assert "may have been written" in message, text


@pytest.mark.parametrize(
    ("platform", "env"),
    [("bluesky", {}), ("twitter", {}), ("twitter", READERS["twikit-first"])],
    ids=["bluesky", "twitter", "twitter-web"],
)
async def test_read_back_lag_hides_a_new_write_from_search_and_its_thread(
    sandbox: SandboxControl, platform: str, env: dict[str, str]
) -> None:
    """Bluesky's AppView and X's search index show a new post late (the sandbox's ``lag``):
    the writes still answer posted, and a read-back through search or the thread finds
    nothing yet, as the real ones can answer (Mastodon's: test_mastodon.py); but Bluesky's
    search and threads list our own posts and replies from our repo on the PDS, which has
    the new ones at once."""
    target = sandbox.ids(platform)["summons-me"]
    text = "Lagging words about cancellation"
    async with Client(SPECS[platform].build(sandbox.url, **env)) as client:
        sandbox.fault(platform, kind="lag", seconds=600)
        reply = await call(client, "write_comment", post_id=target, body=text)
        post = await call(client, "write_post", title="", body=f"{text}, again")  # X: no twins
        thread = (await call(client, "get_comments", post_id=target))["comments"]
        found = (await call(client, "search", query="lagging words", limit=40))["posts"]
    seen = {c["id"] for c in thread} | {p["id"] for p in found}
    assert reply["ok"] and post["ok"], (reply, post)
    ours = {reply["id"], post["id"]}
    assert ours <= seen if platform == "bluesky" else not ours & seen, seen
