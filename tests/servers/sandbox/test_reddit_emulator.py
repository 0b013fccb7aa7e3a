"""The Reddit emulator's wire, checked with plain HTTP against what Reddit really sends
(platform-wire.md §3 and the recorded payloads): token answers, 401s, the three
x-ratelimit headers, trailing slashes, listing envelopes and paging, "more" stubs,
/api/morechildren, deleted comments, HTTP-200 write errors and injected faults."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from gwanjong_sandbox.control import SandboxControl
from gwanjong_sandbox.corpus import build_corpus
from gwanjong_sandbox.reddit import CLIENT_ID, CLIENT_SECRET, ME, PASSWORD

pytestmark = pytest.mark.sandbox  # the whole file: see tests/tiers.py
RATE_HEADERS = ("x-ratelimit-used", "x-ratelimit-remaining", "x-ratelimit-reset")
LIVE_THREADS = sum(1 for thread in build_corpus() if not thread.deleted)


def token(sandbox: SandboxControl, user: bool = True) -> str:
    form = (
        {"grant_type": "password", "username": ME, "password": PASSWORD}
        if user
        else {"grant_type": "client_credentials"}
    )
    answer = httpx.post(
        f"{sandbox.url}/reddit/api/v1/access_token", data=form, auth=(CLIENT_ID, CLIENT_SECRET)
    )
    assert answer.status_code == 200
    body = answer.json()
    assert body["token_type"] == "bearer" and body["expires_in"] > 0 and body["scope"] == "*"
    return body["access_token"]


def api(
    sandbox: SandboxControl, method: str, path: str, bearer: str | None, **kw: Any
) -> httpx.Response:
    headers = {"Authorization": f"bearer {bearer}"} if bearer else {}
    return httpx.request(
        method, f"{sandbox.url}/reddit/{path}", headers=headers, follow_redirects=False, **kw
    )


def walk(children: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for child in children:
        yield child
        replies = child["data"].get("replies") if child["kind"] == "t1" else None
        if replies:
            yield from walk(replies["data"]["children"])


def test_token_answers(sandbox: SandboxControl) -> None:
    url = f"{sandbox.url}/reddit/api/v1/access_token"
    wrong_password = httpx.post(
        url,
        data={"grant_type": "password", "username": ME, "password": "nope"},
        auth=(CLIENT_ID, CLIENT_SECRET),
    )
    assert wrong_password.status_code == 200 and wrong_password.json() == {"error": "invalid_grant"}
    wrong_client = httpx.post(
        url, data={"grant_type": "client_credentials"}, auth=(CLIENT_ID, "nope")
    )
    assert wrong_client.status_code == 401
    assert token(sandbox) != token(sandbox, user=False)


def test_401_has_www_authenticate_and_html(sandbox: SandboxControl) -> None:
    for bearer in (None, "made-up"):
        answer = api(sandbox, "GET", "api/v1/me", bearer, params={"raw_json": "1"})
        assert answer.status_code == 401
        assert answer.headers["www-authenticate"] == 'Bearer realm="reddit", error="invalid_token"'
        assert answer.headers["content-type"].startswith("text/html")
        assert not any(h in answer.headers for h in RATE_HEADERS)


def test_app_only_token_has_no_me(sandbox: SandboxControl) -> None:
    answer = api(sandbox, "GET", "api/v1/me", token(sandbox, user=False))
    assert answer.status_code == 403 and answer.json() == {"message": "Forbidden", "error": 403}
    assert all(h in answer.headers for h in RATE_HEADERS)
    assert api(sandbox, "GET", "api/v1/me", token(sandbox)).json()["name"] == ME


def test_both_slash_forms_and_all_three_rate_headers(sandbox: SandboxControl) -> None:
    bearer = token(sandbox)
    post = sandbox.ids("reddit")["rust-async"]
    for path in (
        f"comments/{post}",
        f"comments/{post}/",
        f"comments/{post}.json",
        "r/rust/hot",
        "r/rust/hot/",
        "r/rust/search/",
        "api/info",
    ):
        answer = api(sandbox, "GET", path, bearer, params={"raw_json": "1", "q": "async"})
        assert answer.status_code == 200, path
        used, remaining, reset = (answer.headers[h] for h in RATE_HEADERS)
        assert int(used) >= 1 and remaining.endswith(".0") and float(remaining) + int(used) == 1000
        assert 1 <= int(reset) <= 10


def test_listing_envelope_and_paging(sandbox: SandboxControl) -> None:
    bearer = token(sandbox)
    seen: list[str] = []
    after = None
    for _ in range(5):
        params = {"limit": "4", "raw_json": "1", **({"after": after} if after else {})}
        data = api(sandbox, "GET", "r/popular/hot", bearer, params=params).json()
        assert data["kind"] == "Listing"
        assert set(data["data"]) == {"after", "dist", "modhash", "geo_filter", "children", "before"}
        assert data["data"]["modhash"] is None and data["data"]["dist"] == len(
            data["data"]["children"]
        )
        for child in data["data"]["children"]:
            assert child["kind"] == "t3"
            t3 = child["data"]
            assert t3["name"] == f"t3_{t3['id']}" and isinstance(t3["created_utc"], float)
            assert t3["url"] == "https://www.reddit.com" + t3["permalink"]
            seen.append(t3["id"])
        after = data["data"]["after"]
        if after is None:
            break
    assert (
        len(seen) == len(set(seen)) == LIVE_THREADS
    )  # every live thread once; the deleted one is gone
    search = api(sandbox, "GET", "search", bearer, params={"q": "비동기"}).json()["data"]
    assert "facets" in search and "geo_filter" not in search
    assert search["children"][0]["data"]["title"].startswith("파이썬")


def test_unknown_subreddit_redirects_to_search(sandbox: SandboxControl) -> None:
    answer = api(sandbox, "GET", "r/no_such_place/hot", token(sandbox))
    assert answer.status_code == 302
    assert answer.headers["location"].startswith("/subreddits/search")


def test_big_thread_page_has_more_stubs_and_morechildren_is_flat(sandbox: SandboxControl) -> None:
    bearer = token(sandbox)
    post = sandbox.ids("reddit")["huge"]
    page = api(
        sandbox,
        "GET",
        f"comments/{post}/",
        bearer,
        params={"limit": "2048", "sort": "confidence", "raw_json": "1"},
    ).json()
    assert isinstance(page, list) and len(page) == 2
    assert page[0]["data"]["children"][0]["data"]["num_comments"] == 500
    things = list(walk(page[1]["data"]["children"]))
    comments = [t for t in things if t["kind"] == "t1"]
    stubs = [t["data"] for t in things if t["kind"] == "more"]
    assert len(comments) == 200 and stubs
    assert sum(s["count"] for s in stubs) == 300
    leaf = next(c for c in comments if c["data"]["replies"] == "")
    assert "depth" in leaf["data"]
    biggest = max(stubs, key=lambda s: s["count"])
    assert set(biggest) == {"count", "name", "id", "parent_id", "depth", "children"}
    assert biggest["name"] == f"t1_{biggest['children'][0]}"

    more = api(
        sandbox,
        "POST",
        "api/morechildren/",
        bearer,
        params={"raw_json": "1"},
        data={
            "api_type": "json",
            "children": ",".join(biggest["children"]),
            "link_id": f"t3_{post}",
            "sort": "confidence",
        },
    ).json()
    assert more["json"]["errors"] == []
    flat = more["json"]["data"]["things"]
    loaded = [t["data"] for t in flat if t["kind"] == "t1"]
    assert 0 < len(loaded) <= 100
    assert all(t["replies"] == "" and "depth" in t for t in loaded)
    names = {f"t1_{t['id']}" for t in loaded} | {biggest["parent_id"]}
    assert all(t["parent_id"] in names for t in loaded), "parents come before their replies"


def test_private_messages_crowd_the_inbox(sandbox: SandboxControl) -> None:
    # What the server's inbox reads around (tests/servers/wire/test_inbox_paging.py) is
    # real here too: the newest inbox page is 98 private messages (t4).
    sandbox.flood_inbox(30, noise=98, noise_last=True)
    params = {"limit": 100, "raw_json": 1}
    page = api(sandbox, "GET", "message/inbox", token(sandbox), params=params).json()["data"]
    kinds = [c["kind"] for c in page["children"]]
    assert kinds.count("t4") == 98 and len(kinds) == 100 and page["after"]


def test_deleted_comment_shape(sandbox: SandboxControl) -> None:
    post = sandbox.ids("reddit")["deleted-comments"]
    page = api(sandbox, "GET", f"comments/{post}", token(sandbox)).json()
    gone = next(
        c["data"] for c in page[1]["data"]["children"] if c["data"]["author"] == "[deleted]"
    )
    assert gone["body"] == "[removed]" and "author_fullname" not in gone
    assert gone["replies"]["data"]["children"][0]["data"]["body"] == "Please keep it civil."


def test_write_errors_come_with_http_200(sandbox: SandboxControl) -> None:
    bearer = token(sandbox)
    post = sandbox.ids("reddit")["rust-async"]
    cases = [
        (
            "api/submit/",
            {"sr": "nowhere_at_all", "kind": "self", "title": "t", "text": "x"},
            "SUBREDDIT_NOEXIST",
        ),
        (
            "api/submit/",
            {"sr": "test", "kind": "self", "title": "t" * 301, "text": "x"},
            "TOO_LONG",
        ),
        ("api/comment/", {"thing_id": f"t3_{post}", "text": "x" * 10_001}, "TOO_LONG"),
        ("api/comment/", {"thing_id": f"t3_{post}", "text": "  "}, "NO_TEXT"),
        ("api/comment/", {"thing_id": "t1_zzzzzzz", "text": "hello"}, "DELETED_COMMENT"),
    ]
    for path, form, error in cases:
        answer = api(
            sandbox,
            "POST",
            path,
            bearer,
            params={"raw_json": "1"},
            data={"api_type": "json", **form},
        )
        assert answer.status_code == 200
        assert answer.json()["json"]["errors"][0][0] == error
    assert sandbox.writes("reddit") == []
    created = api(
        sandbox,
        "POST",
        "api/comment/",
        bearer,
        data={"api_type": "json", "thing_id": f"t3_{post}", "text": "ok"},
    ).json()
    thing = created["json"]["data"]["things"][0]
    assert thing["kind"] == "t1" and "depth" not in thing["data"] and thing["data"]["likes"] is True


@pytest.mark.parametrize("status", [401, 403, 404, 429, 500, 503])
def test_injected_faults_look_like_reddit(sandbox: SandboxControl, status: int) -> None:
    bearer = token(sandbox)
    sandbox.fault("reddit", status=status, retry_after=7 if status == 429 else None)
    answer = api(sandbox, "GET", "r/rust/hot", bearer)
    assert answer.status_code == status
    if status == 401:
        assert "invalid_token" in answer.headers["www-authenticate"]
    elif status == 429:
        assert answer.headers["retry-after"] == "7" and answer.headers["x-ratelimit-reset"] == "7"
        assert (
            answer.headers["x-ratelimit-remaining"] == "0.0"
            and "x-ratelimit-used" in answer.headers
        )
    elif status in (403, 404):
        assert answer.json() == {"message": answer.json()["message"], "error": status}
        assert all(h in answer.headers for h in RATE_HEADERS)


def test_raw_json_decides_the_escaping(sandbox: SandboxControl) -> None:
    bearer = token(sandbox)
    post = sandbox.ids("reddit")["empty-thread"]
    text = "Use Vec<u8> & keep a > b"
    api(
        sandbox,
        "POST",
        "api/comment",
        bearer,
        params={"raw_json": "1"},
        data={"api_type": "json", "thing_id": f"t3_{post}", "text": text},
    )
    bodies = {}
    for raw in ("1", None):
        params = {"raw_json": raw} if raw else {}
        page = api(sandbox, "GET", f"comments/{post}/", bearer, params=params).json()
        bodies[raw] = page[1]["data"]["children"][0]["data"]["body"]
    assert bodies["1"] == text
    assert bodies[None] == "Use Vec&lt;u8&gt; &amp; keep a &gt; b"


def test_a_new_post_is_on_its_authors_profile_at_once_and_in_search_late(
    sandbox: SandboxControl,
) -> None:
    """Reddit's search index lists a new post minutes after it is made (never one its spam
    filter holds); its author's ``/user/{name}/submitted`` lists it at once, newest first."""
    bearer = token(sandbox)
    form = {"api_type": "json", "sr": "test", "kind": "self", "title": "Fresh words", "text": "x"}
    made = api(sandbox, "POST", "api/submit/", bearer, data=form).json()["json"]["data"]
    search = api(sandbox, "GET", "r/test/search", bearer, params={"q": "fresh words"}).json()
    assert search["data"]["children"] == []
    mine = api(sandbox, "GET", f"user/{ME}/submitted/", bearer, params={"sort": "new"}).json()
    listed = [c["data"] for c in mine["data"]["children"]]
    assert listed[0]["id"] == made["id"] and {t3["author"] for t3 in listed} == {ME}
    assert api(sandbox, "GET", "user/someone_else/submitted", bearer).json()["data"]["dist"] == 0
