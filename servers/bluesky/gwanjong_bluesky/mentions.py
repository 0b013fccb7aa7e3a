"""Bluesky's inbox: the mention, reply and quote notifications of our account.

One ``app.bsky.notification.listNotifications`` call filtered by reason. The items come
newest first; the cursor we hand out is the newest ``indexedAt`` seen, and older or equal
items are dropped on the next call (the notification cursor pages backwards, so it
cannot say "newer than").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atproto import models
from atproto_client.models.utils import get_model_as_dict

from gwanjong_bluesky.posts import to_post
from gwanjong_shared.contract import MentionList

if TYPE_CHECKING:
    from gwanjong_bluesky.session import BlueskyClient

REASONS = ["mention", "reply", "quote"]


async def fetch_mentions(client: BlueskyClient, since: str | None, limit: int) -> MentionList:
    did, _handle = await client.me()  # the inbox is an account's: sign in first
    params = models.AppBskyNotificationListNotifications.Params(
        limit=min(100, max(limit, 50)), reasons=REASONS
    )
    response = await client.call(
        "reading notifications",
        lambda c: c.app.bsky.notification.list_notifications(params),
    )
    data = get_model_as_dict(response)
    posts = []
    newest = since or ""
    for item in data.get("notifications") or []:
        indexed = str(item.get("indexedAt") or "")
        reason = str(item.get("reason") or "")
        author = (item.get("author") or {}).get("did")
        if reason not in REASONS or author == did or (since and indexed <= since):
            continue
        newest = max(newest, indexed)
        post = to_post(item)
        posts.append(post.model_copy(update={"tags": [reason]}))
    return MentionList(posts=posts[:limit], next_since=newest)
