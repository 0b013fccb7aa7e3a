"""The opt-in web reader: twikit on X's logged-in web GraphQL API. Reading only.

Reading through a logged-in web session is against X's automation rules ("official API only")
and can get the account locked or suspended; twikit 2.3.3 is unmaintained and often broken
against live X (platform-wire.md §4b, anchors-social.md §5.5). The adapter therefore tries it
first only when configured, bounds it, and falls back to the official API on any failure.

Two twikit traps are handled here rather than patched in the library:

- a failed bootstrap (the x.com page scrape) leaves twikit's ClientTransaction half-built, so
  every later request would fail; the transaction is rebuilt after a failure;
- a conversation module whose first post was deleted (a ``TweetTombstone``) is dropped whole by
  ``get_tweet_by_id``, with the replies under it; conversations are read page by page with
  twikit's own TweetDetail request and parser, keeping tombstones as placeholders.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import sys
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import twikit
from twikit.tweet import tweet_from_data
from twikit.x_client_transaction import ClientTransaction

from gwanjong_shared.contract import errors
from gwanjong_shared.kit.ratelimit import Limiter
from gwanjong_twitter.posts import XPost, expand_links, web_time_to_iso
from gwanjong_twitter.redirect import web_gate
from gwanjong_twitter.settings import Settings

log = logging.getLogger(__name__)
USER_STATE = "https://api.x.com/help-center/forms/api/prod/user_state.json"


class _Client(twikit.Client):
    """twikit's client with one guard: after a 429, twikit asks ``user_state.json`` whether the
    account is suspended, and if that answer is a 429 too it asks again, without end (one more
    request per level). Here it asks once."""

    async def _get_user_state(self) -> Any:  # type: ignore[override]
        data, _response = await self.get(
            USER_STATE, headers=self._base_headers, raise_exception=False
        )
        return data.get("userState", "normal") if isinstance(data, dict) else "normal"


@contextlib.contextmanager
def no_console() -> Iterator[None]:
    """While twikit logs in, stdin reads as empty and stdout goes to stderr.

    twikit prints prompts and calls ``input()`` when X asks for an e-mail code or a 2FA code
    it was not given; on a stdio MCP server stdout is the protocol and stdin belongs to the
    client. With this guard such a prompt fails at once (EOFError) instead of blocking the
    server or corrupting its output.
    """
    saved_in, saved_out = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = io.StringIO(""), sys.stderr
    try:
        yield
    finally:
        sys.stdin, sys.stdout = saved_in, saved_out


class WebReader:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.limiter = Limiter("X's web API")
        self._client: _Client | None = None
        self._ready = False

    def _build(self) -> _Client:
        s = self.settings
        client = _Client(language="en-US")
        # Set the transport after construction: twikit's proxy setter would drop one passed in.
        target = s.web_base_url or s.api_base_url
        client.http = httpx.AsyncClient(
            transport=web_gate(target, self.limiter), timeout=s.timeout_s
        )
        return client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.http.aclose()
        self._client = None
        self._ready = False

    async def client(self) -> _Client:
        if self._client is None:
            self._client = self._build()
        if not self._ready:
            await self._sign_in(self._client)
            self._ready = True
        return self._client

    async def _sign_in(self, client: _Client) -> None:
        s = self.settings
        path = s.cookies_file
        if path and await anyio.Path(path).exists():
            client.load_cookies(path)
            return
        if not (s.username and s.password is not None):
            raise errors.auth(
                f"The twikit cookies file {path!r} does not exist and no TWITTER_USERNAME/PASSWORD "
                "is set to create it."
            )
        with no_console():
            await client.login(
                auth_info_1=s.username,
                auth_info_2=s.email,
                password=s.password.get_secret_value(),
                totp_secret=s.totp_secret.get_secret_value() if s.totp_secret else None,
                enable_ui_metrics=False,  # never run X's obfuscated JavaScript here
            )
        if path:  # a web session: created 0600 (twikit's own save follows the umask)
            with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
                json.dump(client.get_cookies(), f)

    def recover(self) -> None:
        """After a failure: rebuild a half-initialised transaction so the next call retries it."""
        client = self._client
        if client is not None and not getattr(client.client_transaction, "animation_key", None):
            client.client_transaction = ClientTransaction()

    # -- mapping ------------------------------------------------------------------------

    @staticmethod
    def post_from_result(result: dict[str, Any]) -> XPost | None:
        """A web ``tweet_results.result`` (legacy layout, as twikit reads it) as an XPost."""
        if result.get("__typename") == "TweetWithVisibilityResults":
            result = result.get("tweet") or {}
        if result.get("__typename") == "TweetTombstone" or "legacy" not in result:
            return None
        legacy = result["legacy"]
        user = ((result.get("core") or {}).get("user_results") or {}).get("result") or {}
        user_legacy = user.get("legacy") or {}
        note = (
            ((result.get("note_tweet") or {}).get("note_tweet_results") or {}).get("result")
        ) or {}
        entities = note.get("entity_set") or legacy.get("entities") or {}
        quoted = ((result.get("quoted_status_result") or {}).get("result")) or {}
        if quoted.get("__typename") == "TweetWithVisibilityResults":
            quoted = quoted.get("tweet") or {}
        quoted_user = ((quoted.get("core") or {}).get("user_results") or {}).get("result") or {}
        policy = (legacy.get("conversation_control") or {}).get("policy")
        return XPost(
            id=str(result.get("rest_id") or legacy.get("id_str")),
            text=expand_links(
                note.get("text") or legacy.get("full_text", ""), entities.get("urls", [])
            ),
            author=str(user_legacy.get("screen_name", "")),
            author_id=str(user.get("rest_id") or legacy.get("user_id_str", "")),
            created_at=web_time_to_iso(legacy.get("created_at")),
            conversation_id=str(legacy.get("conversation_id_str", "")),
            parent_id=legacy.get("in_reply_to_status_id_str"),
            quoted_author=str((quoted_user.get("legacy") or {}).get("screen_name", "")),
            quoted_author_id=str(quoted_user.get("rest_id", "")),
            mentions=[m.get("screen_name", "") for m in entities.get("user_mentions", [])],
            hashtags=[h.get("text", "") for h in entities.get("hashtags", [])],
            likes=int(legacy.get("favorite_count") or 0),
            replies=int(legacy.get("reply_count") or 0),
            reply_settings={
                "ByInvitation": "mentionedUsers",
                "Community": "following",
                "Verified": "verified",
            }.get(str(policy), "everyone")
            if policy
            else "everyone",
            raw=result,
        )

    def _from_tweet(self, tweet: twikit.Tweet) -> XPost:
        post = self.post_from_result(tweet._data)  # the raw result twikit parsed
        if post is None:
            raise errors.not_found(f"X shows post {tweet.id} as unavailable.")
        return post

    # -- reads ----------------------------------------------------------------------------

    async def get(self, post_id: str) -> XPost:
        client = await self.client()
        try:
            tweet = await client.get_tweet_by_id(post_id)
        except twikit.errors.TweetNotAvailable:
            raise errors.not_found(
                f"X has no post {post_id} (the web API says it is missing)."
            ) from None
        return self._from_tweet(tweet)

    async def search(self, query: str, limit: int, product: str = "Latest") -> list[XPost]:
        client = await self.client()
        found: list[XPost] = []
        seen: set[str] = set()
        result = await client.search_tweet(query, product, count=20)  # type: ignore[arg-type]
        while True:
            fresh = [t for t in result if t.id not in seen]
            for tweet in fresh:
                seen.add(tweet.id)
                found.append(self._from_tweet(tweet))
            if len(found) >= limit or not fresh:
                break
            result = await result.next()
        return found[:limit]

    async def conversation(self, root: XPost, limit: int) -> list[XPost]:
        """Replies under ``root`` from TweetDetail pages (modules of replies), tombstones kept."""
        client = await self.client()
        found: dict[str, XPost] = {}
        cursor: str | None = None
        for _page in range(200):
            data, _response = await client.gql.tweet_detail(root.id, cursor)
            if isinstance(data, dict) and "errors" in data:
                raise errors.not_found(f"X has no post {root.id} (the web API says it is missing).")
            entries = _entries(data)
            for entry in entries:
                entry_id = str(entry.get("entryId", ""))
                if not entry_id.startswith("conversationthread"):
                    continue
                for item in (entry.get("content") or {}).get("items", []):
                    item_id = str(item.get("entryId", ""))
                    if "-tweet-" not in item_id:
                        continue  # "show more" cursors and composer slots
                    result = ((item.get("item") or {}).get("itemContent") or {}).get(
                        "tweet_results", {}
                    ).get("result") or {}
                    post = self._parse_item(item, result)
                    if post is None:
                        post = XPost(id=item_id.rsplit("-tweet-", 1)[1], deleted=True)
                    found.setdefault(post.id, post)
            cursor = _bottom_cursor(entries)
            if cursor is None or len(found) >= limit:
                break
        # A reply under a tombstone names its parent: the tombstone gets its id from there too.
        return list(found.values())

    def _parse_item(self, item: dict[str, Any], result: dict[str, Any]) -> XPost | None:
        if self._client is not None and tweet_from_data(self._client, item) is None:
            return None  # twikit itself would skip it (tombstone, no user, no legacy)
        return self.post_from_result(result)

    async def trends(self, count: int) -> list[str]:
        client = await self.client()
        # retry=False: with no trends module twikit would otherwise call itself without end.
        trends = await client.get_trends("trending", count=max(count, 1), retry=False)
        return [t.name for t in trends]


def _entries(data: Any) -> list[dict[str, Any]]:
    try:
        instructions = data["data"]["threaded_conversation_with_injections_v2"]["instructions"]
    except (KeyError, TypeError):
        return []
    for instruction in instructions:
        if instruction.get("type") == "TimelineAddEntries":
            return list(instruction.get("entries") or [])
    return []


def _bottom_cursor(entries: list[dict[str, Any]]) -> str | None:
    for entry in reversed(entries):
        if str(entry.get("entryId", "")).startswith("cursor-bottom"):
            content = entry.get("content") or {}
            value = (content.get("itemContent") or {}).get("value") or content.get("value")
            return str(value) if value else None
    return None
