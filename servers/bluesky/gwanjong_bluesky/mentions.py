"""Bluesky's inbox: the mention, reply and quote notifications of our account.

``app.bsky.notification.listNotifications`` filtered by reason, 100 a page, newest first,
paged back with its ``cursor`` until the page reaches our cursor (``gwanjong_shared.kit.
inbox``: the oldest unseen first). Our cursor is ``<indexedAt>,<uri>`` of the newest item
handed out: the notification cursor pages backwards, so it cannot say "newer than", and a
time alone would lose or repeat items indexed in the same millisecond. A bare
``indexedAt`` (what this server handed out before) still works: everything indexed by
then counts as seen. Bluesky keeps notifications for good, so a backlog deeper than the
page bound resumes from its page cursor on the next call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from atproto import models
from atproto_client.models.utils import get_model_as_dict

from gwanjong_bluesky.posts import to_post
from gwanjong_shared.contract import MentionList
from gwanjong_shared.contract.models import Post
from gwanjong_shared.kit.inbox import (
    LAST,
    Key,
    Page,
    hand_out,
    iso_key,
    key_text,
    parse_cursor,
    read_back,
)

if TYPE_CHECKING:
    from gwanjong_bluesky.session import BlueskyClient

REASONS = ["mention", "reply", "quote"]
PAGE = 100  # the lexicon's maximum
EXAMPLE = "2026-11-27T09:00:00.000Z,at://did:plc:abc/app.bsky.feed.post/3lxyz"


def parse_key(text: str) -> Key | None:
    when, comma, uri = text.partition(",")
    try:
        key = iso_key(when)
    except ValueError:
        return None
    if not comma:
        return (key, LAST)
    return (key, uri) if uri.startswith("at://") and " " not in uri else None


def _key(item: dict[str, Any]) -> Key | None:
    try:
        return (iso_key(str(item.get("indexedAt") or "")), str(item.get("uri") or ""))
    except ValueError:
        return None


async def fetch_mentions(client: BlueskyClient, since: str | None, limit: int) -> MentionList:
    cursor = parse_cursor(since, parse_key, EXAMPLE)
    did, _handle = await client.me()  # the inbox is an account's: sign in first

    async def page(token: str | None) -> Page[Post]:
        params = models.AppBskyNotificationListNotifications.Params(
            limit=PAGE, reasons=REASONS, cursor=token
        )
        response = await client.call(
            "reading notifications",
            lambda c: c.app.bsky.notification.list_notifications(params),
        )
        data = get_model_as_dict(response)
        items: list[tuple[Key, Post]] = []
        keys: list[Key] = []
        for item in data.get("notifications") or []:
            key = _key(item)
            if key is None:
                continue
            keys.append(key)
            reason = str(item.get("reason") or "")
            if reason not in REASONS or (item.get("author") or {}).get("did") == did:
                continue
            items.append((key, to_post(item).model_copy(update={"tags": [reason]})))
        nxt = data.get("cursor")
        return Page(items, str(nxt) if nxt else None, min(keys, default=None))

    return hand_out(await read_back(page, cursor), cursor, limit, key_text)
