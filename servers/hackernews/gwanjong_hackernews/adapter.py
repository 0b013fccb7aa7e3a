"""Hacker News through its two public read APIs, with httpx: Firebase (items, the front
page, users) and Algolia HN Search (full-text search). Neither has a write route, and HN's
guidelines forbid generated comments: every write is refused before any request."""

from __future__ import annotations

import html
import re
import time
from datetime import UTC, datetime
from typing import Any, ClassVar

import anyio
import httpx

from gwanjong_hackernews.profile import NEVER
from gwanjong_hackernews.settings import Settings
from gwanjong_shared.contract import Capabilities, Limit, LimitName, MentionList, errors
from gwanjong_shared.contract.models import Comment, Post, PostResult
from gwanjong_shared.kit.adapter import PlatformAdapter
from gwanjong_shared.kit.host_gate import GateTransport, HostAllowList
from gwanjong_shared.kit.http import raise_for_response, transport_error
from gwanjong_shared.kit.ratelimit import Clock, Limiter, Sleep, TokenBucket

#: where a person reads an item (the API hosts serve JSON only)
SITE = "https://news.ycombinator.com"
#: HN cuts titles at 80 characters; it publishes no limit for text, so 10,000 is our bound
LIMITS: dict[LimitName, Limit] = {
    "title": Limit(max=80, unit="chars"),
    "body": Limit(max=10_000, unit="chars"),
    "comment": Limit(max=10_000, unit="chars"),
}
CREDENTIALS = ["HACKERNEWS_USERNAME"]
#: Algolia tags kept as a Post's tags (the rest name the author and the story id)
_KINDS = ("story", "comment", "poll", "job", "ask_hn", "show_hn", "front_page")
# HN's own links: attributes and text hold no "<" (HN escapes it), so each try stops at the
# next one, and an unclosed "<a" costs no scan to the end of the text (quadratic on hostile HTML)
_LINK = re.compile(r"<a\s[^<>]*?href=\"([^\"<>]*)\"[^<>]*>[^<]*</a>", re.I)
_PARA = re.compile(r"<p>", re.I)
_TAGS = re.compile(r"<[^<>]+>")
_USERNAME = re.compile(r"[A-Za-z0-9_-]{2,15}")


def text_of(markup: str | None) -> str:
    """HN's HTML as text: ``<p>`` starts a paragraph, a link is its full URL (HN shows it
    cut short), every other tag goes, entities (``&#x27;``, ``&#x2F;``) are decoded."""
    if not markup:
        return ""
    text = _LINK.sub(lambda m: m.group(1), markup)
    text = _PARA.sub("\n\n", text)
    return html.unescape(_TAGS.sub("", text)).strip()


def item_url(item_id: object) -> str:
    return f"{SITE}/item?id={item_id}"


def iso(unix: object) -> str | None:
    if not isinstance(unix, int | float) or isinstance(unix, bool):
        return None
    return datetime.fromtimestamp(unix, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def gone(item: dict[str, Any] | None) -> bool:
    """Missing (``null``), deleted or dead (flagged): not something to read or answer."""
    return item is None or bool(item.get("deleted")) or bool(item.get("dead"))


def post_from_item(item: dict[str, Any], platform: str) -> Post:
    """A Firebase item (story, comment, poll, job) as a Post: a link story's body is its URL."""
    body = text_of(item.get("text")) or str(item.get("url") or "")
    return Post(
        id=str(item["id"]),
        platform=platform,
        title=str(item.get("title") or ""),
        url=item_url(item["id"]),
        body=body,
        author=str(item.get("by") or ""),
        tags=[str(item.get("type") or "story")],
        likes=int(item.get("score") or 0),
        comments_count=int(item.get("descendants") or 0),
        published_at=iso(item.get("time")),
        raw=item,
    )


def post_from_hit(hit: dict[str, Any], platform: str) -> Post:
    """An Algolia hit as a Post: a comment hit carries its story's title."""
    body = text_of(hit.get("story_text") or hit.get("comment_text")) or str(hit.get("url") or "")
    return Post(
        id=str(hit["objectID"]),
        platform=platform,
        title=str(hit.get("title") or hit.get("story_title") or ""),
        url=item_url(hit["objectID"]),
        body=body,
        author=str(hit.get("author") or ""),
        tags=[str(t) for t in hit.get("_tags") or [] if t in _KINDS],
        likes=int(hit.get("points") or 0),  # null on comments: Algolia has no comment score
        comments_count=int(hit.get("num_comments") or 0),
        published_at=hit.get("created_at"),
        raw=hit,
    )


def _route_key(method: str, path: str) -> str:
    # Algolia and Firebase are separate services with separate limits.
    return "search" if path.startswith("/api/") else "items"


class HackernewsAdapter(PlatformAdapter):
    platform: ClassVar[str] = "hackernews"
    label: ClassVar[str] = "Hacker News"

    def __init__(
        self,
        settings: Settings,
        transport: httpx.AsyncBaseTransport | None = None,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = anyio.sleep,
    ) -> None:
        self.settings = settings
        self._transport = transport
        self.api = settings.api_url.rstrip("/")
        self.search_api = settings.search_url.rstrip("/")
        # Firebase publishes no limit: only the 429s it may send hold us; Algolia is paced.
        self.limiter = Limiter(self.label, clock=clock, sleep=sleep)
        self.search_pace = TokenBucket(settings.searches_per_minute, 60.0, clock, sleep)
        self.in_flight = anyio.CapacityLimiter(settings.concurrency)
        self._http: httpx.AsyncClient | None = None
        self._account: str | None = None

    async def connect(self) -> None:
        hosts = HostAllowList([httpx.URL(self.api).host, httpx.URL(self.search_api).host])
        gate = GateTransport(hosts, self.limiter, _route_key, inner=self._transport)
        self._http = httpx.AsyncClient(
            headers={"user-agent": "gwanjong-hackernews/0.1"},
            timeout=self.settings.timeout_s,
            transport=gate,
        )

    async def close(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    def is_configured(self) -> bool:
        return self.settings.username is not None

    async def _get(self, url: str, *, what: str | None = None, **kw: Any) -> Any:
        if self._http is None:
            await self.connect()
        assert self._http is not None
        key = _route_key("GET", httpx.URL(url).path)
        self.limiter.check(key)
        if key == "search":
            await self.search_pace.acquire()
        async with self.in_flight:
            try:
                response = await self._http.get(url, **kw)  # the gate traces it
            except httpx.HTTPError as exc:
                raise transport_error(exc, self.label) from None
        if response.status_code in (401, 403):  # the contract's kind; no key to blame
            raise errors.auth(
                f"{self.label} refused a public read (HTTP {response.status_code}); it takes no "
                "key or password. Check HACKERNEWS_API_URL and HACKERNEWS_SEARCH_URL, and the "
                "network or proxy this server goes out through."
            )
        raise_for_response(response, self.label, what=what)
        try:
            return response.json()
        except ValueError:
            raise errors.unavailable(
                f"{self.label} sent a reply that is not JSON. Try again later."
            ) from None

    async def item(self, item_id: int | str) -> dict[str, Any] | None:
        """One Firebase item; None where HN answers ``null`` (no such item)."""
        data = await self._get(f"{self.api}/v0/item/{item_id}.json", what=f"item {item_id}")
        return data if isinstance(data, dict) else None

    async def items(self, ids: list[int]) -> list[dict[str, Any] | None]:
        """Many items at once, at most ``concurrency`` in flight, in the order asked."""
        found: list[dict[str, Any] | None] = [None] * len(ids)

        async def one(i: int, item_id: int) -> None:
            found[i] = await self.item(item_id)

        try:
            async with anyio.create_task_group() as group:
                for i, item_id in enumerate(ids):
                    group.start_soon(one, i, item_id)
        except* errors.PlatformError as failed:  # the first read's kind (429, timeout), not a group
            raise failed.exceptions[0] from None
        return found

    @staticmethod
    def item_id(post_id: str) -> int:
        text = post_id.strip()
        if not (text.isascii() and text.isdigit()):  # str.isdigit takes ² and ٣ too
            raise errors.invalid_input(
                f"Hacker News ids are numbers (like 8863); got {post_id!r}. Use an id from "
                "search or trending."
            )
        return int(text)

    async def live_item(self, post_id: str) -> dict[str, Any]:
        item = await self.item(self.item_id(post_id))
        if item is None:
            raise errors.not_found(
                f"Hacker News has no item {post_id}. Check the id: use one from search or trending."
            )
        if gone(item):
            state = "deleted" if item.get("deleted") else "dead (flagged or killed)"
            raise errors.not_found(
                f"Hacker News item {post_id} is {state}: there is nothing to read. Pick another "
                "from search or trending."
            )
        return item

    # -- reads ----------------------------------------------------------------------

    async def get_trending(self, limit: int) -> list[Post]:
        ids = await self._get(f"{self.api}/v0/topstories.json")
        ranked = [i for i in ids if isinstance(i, int)] if isinstance(ids, list) else []
        posts: list[Post] = []
        start = 0
        while len(posts) < limit and start < len(ranked):  # skipping gone items, in rank order
            batch = ranked[start : start + limit - len(posts)]
            start += len(batch)
            posts += [
                self._post(i) for i in await self.items(batch) if i is not None and not gone(i)
            ]
        return posts[:limit]

    def _post(self, item: dict[str, Any]) -> Post:
        return post_from_item(item, self.platform)

    async def search(self, query: str, limit: int) -> list[Post]:
        route = "search" if self.settings.search_order == "relevance" else "search_by_date"
        data = await self._get(
            f"{self.search_api}/api/v1/{route}",
            params={"query": query, "tags": "(story,comment)", "hitsPerPage": limit},
        )
        hits = data.get("hits") if isinstance(data, dict) else None
        return [post_from_hit(h, self.platform) for h in hits or [] if h.get("objectID")][:limit]

    async def get_post(self, post_id: str) -> Post:
        return self._post(await self.live_item(post_id))

    async def get_comments(self, post_id: str, limit: int) -> list[Comment]:
        from gwanjong_hackernews.tree import fetch_tree

        return await fetch_tree(self, await self.live_item(post_id), limit)

    async def mentions(self, since: str | None, limit: int) -> MentionList:
        from gwanjong_hackernews.mentions import fetch_mentions

        return await fetch_mentions(self, since, limit)

    # -- writes: never ----------------------------------------------------------------

    async def write_post(self, title: str, body: str, tags: list[str]) -> PostResult:
        raise errors.not_supported(NEVER.reason)

    async def write_comment(self, post_id: str, body: str, parent_id: str | None) -> PostResult:
        raise errors.not_supported(NEVER.reason)

    async def upvote(self, post_id: str) -> PostResult:
        raise errors.not_supported(NEVER.reason)

    def static_capabilities(self) -> Capabilities:
        return Capabilities(
            platform=self.platform,
            configured=self.is_configured(),
            actions={"write_post": NEVER, "write_comment": NEVER, "upvote": NEVER},
            limits=LIMITS,
            credentials=CREDENTIALS,
        )

    async def account(self) -> str | None:
        """Our username as HN spells it; a name HN does not know is refused (``auth``)."""
        if self.settings.username is None:
            return None
        if self._account is None:
            user = await self.user()
            self._account = str(user.get("id") or "") or None
        return self._account

    async def user(self) -> dict[str, Any]:
        name = self.settings.username or ""
        data = (
            await self._get(f"{self.api}/v0/user/{name}.json")
            if _USERNAME.fullmatch(name)
            else None  # not an HN name: never put it in a URL
        )
        if not isinstance(data, dict):  # HN answers null for a name it does not know
            raise errors.auth(
                "Hacker News has no user by the name in HACKERNEWS_USERNAME. Check it "
                "(usernames are case-sensitive) and restart the server."
            )
        return data
