"""X's web GraphQL shapes: legacy users and tweets, visibility wrappers, timeline entries, cursors."""

from __future__ import annotations

import base64
from typing import Any

from gwanjong_sandbox.twikit.core import TwikitCore
from gwanjong_sandbox.twikit.model import web_time
from gwanjong_sandbox.twitter.model import (
    XTweet,
    XUser,
    truncate_weighted,
    weighted_length,
)


class TwikitWire(TwikitCore):
    """Renders the shared X world as the web client expects it (platform-wire.md §4b)."""

    # -- rendering ----------------------------------------------------------------------

    def web_user(self, user: XUser) -> dict[str, Any]:
        return {
            "__typename": "User",
            "id": base64.b64encode(f"User:{user.id}".encode()).decode(),
            "rest_id": user.id,
            "affiliates_highlighted_label": {},
            "has_graduated_access": True,
            "is_blue_verified": False,
            "profile_image_shape": "Circle",
            "legacy": {
                "can_dm": False,
                "can_media_tag": True,
                "created_at": web_time(user.created),
                "default_profile": True,
                "default_profile_image": False,
                "description": "",
                "entities": {"description": {"urls": []}},
                "fast_followers_count": 0,
                "favourites_count": 120,
                "followers_count": 300,
                "friends_count": 150,
                "has_custom_timelines": False,
                "is_translator": False,
                "listed_count": 3,
                "location": "",
                "media_count": 2,
                "name": user.name,
                "normal_followers_count": 300,
                "pinned_tweet_ids_str": [],
                "possibly_sensitive": False,
                "profile_image_url_https": f"https://pbs.twimg.com/profile_images/{user.id}/normal.jpg",
                "screen_name": user.username,
                "statuses_count": 800,
                "translator_type": "none",
                "verified": False,
                "want_retweets": False,
                "withheld_in_countries": [],
            },
        }

    def web_tweet(self, t: XTweet, *, with_quote: bool = True) -> dict[str, Any]:
        w = self.world
        if t.deleted:
            return {
                "__typename": "TweetTombstone",
                "tombstone": {
                    "__typename": "TextTombstone",
                    "text": {
                        "rtl": False,
                        "text": "This Post was deleted by the Post author. Learn more",
                        "entities": [
                            {
                                "fromIndex": 41,
                                "toIndex": 51,
                                "ref": {
                                    "type": "TimelineUrl",
                                    "url": "https://help.x.com/rules-and-policies/notices-on-x",
                                    "urlType": "ExternalUrl",
                                },
                            }
                        ],
                    },
                },
            }
        author = w.users[t.author_id]
        long_post = weighted_length(t.text) > 280
        text, links = t.wrapped()  # X's web API wraps links in t.co too
        shown = truncate_weighted(text, 275) if long_post else text
        urls: list[dict[str, Any]] = [
            {
                "display_url": link["display_url"],
                "expanded_url": link["expanded_url"],
                "url": link["url"],
                "indices": [link["start"], link["end"]],
            }
            for link in links
        ]
        reply_parent = w.tweets.get(t.reply_to) if t.reply_to else None
        entities = {
            "hashtags": [
                {"indices": [s, e], "text": h} for s, e, h in t.hashtags(text) if e <= len(shown)
            ],
            "symbols": [],
            "timestamps": [],
            "urls": [u for u in urls if u["indices"][1] <= len(shown)],
            "user_mentions": [
                {
                    "id_str": (m.id if (m := w.by_username(n)) else "0"),
                    "name": m.name if m else n,
                    "screen_name": n,
                    "indices": [s, e],
                }
                for s, e, n in t.mentions(text)
                if e <= len(shown)
            ],
        }
        legacy: dict[str, Any] = {
            "bookmark_count": 0,
            "bookmarked": False,
            "created_at": web_time(t.created),
            "conversation_id_str": t.conversation_id,
            "display_text_range": [0, len(shown)],
            "entities": entities,
            "favorite_count": t.likes,
            "favorited": False,
            "full_text": shown,
            "is_quote_status": t.quoted is not None,
            "lang": t.lang,
            "quote_count": w.quote_count(t.id),
            "reply_count": w.reply_count(t.id),
            "retweet_count": t.retweets,
            "retweeted": False,
            "user_id_str": t.author_id,
            "id_str": t.id,
        }
        if reply_parent is not None:
            legacy["in_reply_to_status_id_str"] = reply_parent.id
            legacy["in_reply_to_user_id_str"] = reply_parent.author_id
            legacy["in_reply_to_screen_name"] = w.users[reply_parent.author_id].username
        if t.quoted:
            legacy["quoted_status_id_str"] = t.quoted
        if t.reply_settings != "everyone":
            policy = {"mentionedUsers": "ByInvitation", "following": "Community"}.get(
                t.reply_settings, "ByInvitation"
            )
            legacy["conversation_control"] = {
                "policy": policy,
                "conversation_owner_results": {
                    "result": {"__typename": "User", "legacy": {"screen_name": author.username}}
                },
            }
        result: dict[str, Any] = {
            "__typename": "Tweet",
            "rest_id": t.id,
            "core": {"user_results": {"result": self.web_user(author)}},
            "unmention_data": {},
            "edit_control": {
                "edit_tweet_ids": [t.id],
                "editable_until_msecs": str(int(t.created.timestamp() * 1000) + 3_600_000),
                "is_edit_eligible": True,
                "edits_remaining": "5",
            },
            "is_translatable": t.lang != "en",
            "views": {"count": str(40 * t.likes + 17), "state": "EnabledWithCount"},
            "source": '<a href="https://x.com" rel="nofollow">X Web App</a>',
            "legacy": legacy,
        }
        if long_post:
            result["note_tweet"] = {
                "is_expandable": True,
                "note_tweet_results": {
                    "result": {
                        "id": base64.b64encode(f"NoteTweetResults:{t.id}".encode()).decode(),
                        "text": text,
                        "entity_set": {
                            "hashtags": [
                                {"indices": [s, e], "text": h} for s, e, h in t.hashtags(text)
                            ],
                            "symbols": [],
                            "urls": urls,
                            "user_mentions": [
                                {
                                    "id_str": (m.id if (m := w.by_username(n)) else "0"),
                                    "name": n,
                                    "screen_name": n,
                                    "indices": [s, e],
                                }
                                for s, e, n in t.mentions(text)
                            ],
                        },
                        "richtext": {"richtext_tags": []},
                        "media": {"inline_media": []},
                    }
                },
            }
        if with_quote and t.quoted and (quoted := w.tweets.get(t.quoted)) is not None:
            result["quoted_status_result"] = {"result": self.web_tweet(quoted, with_quote=False)}
        return result

    def _item(self, t: XTweet) -> dict[str, Any]:
        return {
            "itemType": "TimelineTweet",
            "__typename": "TimelineTweet",
            "tweet_results": {"result": self.web_tweet(t)},
            "tweetDisplayType": "Tweet",
        }

    def _entry(self, t: XTweet, prefix: str = "tweet") -> dict[str, Any]:
        return {
            "entryId": f"{prefix}-{t.id}",
            "sortIndex": t.id,
            "content": {
                "entryType": "TimelineTimelineItem",
                "__typename": "TimelineTimelineItem",
                "itemContent": self._item(t),
            },
        }

    @staticmethod
    def _cursor(kind: str, value: str, *, item_style: bool) -> dict[str, Any]:
        if item_style:  # TweetDetail puts cursors inside itemContent
            return {
                "entryId": f"cursor-{kind.lower()}-{value[-12:]}",
                "sortIndex": "0",
                "content": {
                    "entryType": "TimelineTimelineItem",
                    "__typename": "TimelineTimelineItem",
                    "itemContent": {
                        "itemType": "TimelineTimelineCursor",
                        "__typename": "TimelineTimelineCursor",
                        "value": value,
                        "cursorType": kind,
                    },
                },
            }
        return {
            "entryId": f"cursor-{kind.lower()}-{value[-12:]}",
            "sortIndex": "0",
            "content": {
                "entryType": "TimelineTimelineCursor",
                "__typename": "TimelineTimelineCursor",
                "value": value,
                "cursorType": kind,
            },
        }
