"""Mastodon's inbox: notifications of type ``mention`` (which include replies to us).

``GET /api/v1/notifications?types[]=mention``, 40 a page, newest first, paged back by the
``max_id`` in the Link header (Mastodon.py keeps it as the list's ``_pagination_next``)
until a page reaches our cursor (``gwanjong_shared.kit.inbox``: the oldest unseen first).
Our cursor is ``<created_at>,<notification id>`` of the newest item handed out; a
notification's id sorts with its time, so items of one second are neither lost nor
repeated. A mention that answers one of our statuses is tagged ``reply``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from gwanjong_mastodon.statuses import iso, post_of
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
    from gwanjong_mastodon.adapter import MastodonAdapter

PAGE = 40  # Mastodon's maximum for notifications
EXAMPLE = "2026-11-27T09:00:00.000000Z,113024"
#: a notification's id: a number on Mastodon, a ULID on GoToSocial (both sort as text when
#: padded to one width, and the time comes first anyway)
_ID = re.compile(r"[A-Za-z0-9]{1,40}")


def parse_key(text: str) -> Key | None:
    when, comma, nid = text.partition(",")
    try:
        key = iso_key(when)
    except ValueError:
        return None
    if not comma:
        return (key, LAST)
    return (key, nid.zfill(40)) if _ID.fullmatch(nid) else None


def _key_text(key: Key) -> str:
    return key_text((key[0], key[1].lstrip("0") or "0") if key[1] != LAST else key)


async def fetch_mentions(adapter: MastodonAdapter, since: str | None, limit: int) -> MentionList:
    cursor = parse_cursor(since, parse_key, EXAMPLE)
    me = await adapter.me()  # the inbox is an account's
    my_id = str(me.get("id"))

    async def page(token: str | None) -> Page[Post]:
        found = await adapter.call(
            "notifications",
            types=["mention"],
            max_id=token,
            limit=PAGE,
            what="reading notifications",
        )
        items: list[tuple[Key, Post]] = []
        keys: list[Key] = []
        for note in found or []:
            created = iso(note.get("created_at"))
            if not created or not _ID.fullmatch(str(note.get("id") or "")):
                continue
            key = (iso_key(created), str(note["id"]).zfill(40))
            keys.append(key)
            status: dict[str, Any] | None = note.get("status")
            if note.get("type") != "mention" or not status:
                continue
            if str((status.get("account") or {}).get("id")) == my_id:
                continue
            reason = "reply" if str(status.get("in_reply_to_account_id")) == my_id else "mention"
            items.append(
                (key, post_of(status, adapter.platform, tags=[reason], local=adapter.base_url))
            )
        nxt = getattr(found, "_pagination_next", None) or {}
        max_id = nxt.get("max_id") if isinstance(nxt, dict) else None
        return Page(items, str(max_id) if max_id else None, min(keys, default=None))

    return hand_out(await read_back(page, cursor), cursor, limit, _key_text)
