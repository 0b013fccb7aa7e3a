"""X: the sandbox's credentials, field sets, limits, ids, weighted length, users and posts."""

from __future__ import annotations

import functools
import re
import unicodedata
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import regex

# -- the sandbox's credentials and our own account ------------------------------------

ME_ID = "1790000000000000001"
ME = "gwanjong_bot"
BEARER = "sandbox-twitter-bearer"
API_KEY = "sandbox-twitter-api-key"
API_SECRET = "sandbox-twitter-api-secret"
ACCESS_TOKEN = f"{ME_ID}-sandboxtwitteraccesstoken"
ACCESS_SECRET = "sandbox-twitter-access-secret"
API_HOSTS = ("api.twitter.com", "api.x.com")
MISSING_ID = "1999999999999999999"
# An author who turned protected after posting: recent search's index still holds the posts,
# and X drops them from each page it cuts (a page short or empty, its next_token given).
PROTECTED = "protected_pat"
# The account twikit reads as (logged in on the web), and the session a saved cookies file holds.
READER_ID = "1790000000000000002"
READER = "gwanjong_reader"
WEB_AUTH_TOKEN = "sandbox-twikit-auth-token"
PROBLEM = "application/problem+json"

TWEET_FIELDS = {
    "attachments",
    "author_id",
    "card_uri",
    "context_annotations",
    "conversation_id",
    "created_at",
    "edit_controls",
    "edit_history_tweet_ids",
    "entities",
    "geo",
    "id",
    "in_reply_to_user_id",
    "lang",
    "non_public_metrics",
    "note_tweet",
    "organic_metrics",
    "possibly_sensitive",
    "promoted_metrics",
    "public_metrics",
    "referenced_tweets",
    "reply_settings",
    "scopes",
    "source",
    "text",
    "withheld",
    "display_text_range",
    "article",
    "media_metadata",
}
USER_FIELDS = {
    "affiliation",
    "connection_status",
    "created_at",
    "description",
    "entities",
    "id",
    "location",
    "most_recent_tweet_id",
    "name",
    "pinned_tweet_id",
    "profile_banner_url",
    "profile_image_url",
    "protected",
    "public_metrics",
    "receives_your_dm",
    "subscription_type",
    "url",
    "username",
    "verified",
    "verified_type",
    "withheld",
}
EXPANSIONS = {
    "author_id",
    "referenced_tweets.id",
    "referenced_tweets.id.author_id",
    "in_reply_to_user_id",
    "entities.mentions.username",
    "attachments.media_keys",
    "attachments.poll_ids",
    "geo.place_id",
    "edit_history_tweet_ids",
}

# Per-endpoint limits per 15-minute window (x-api/fundamentals/rate-limits.mdx).
LIMITS = {
    "GET /2/tweets/:id": 450,
    "GET /2/tweets": 450,
    "GET /2/tweets/search/recent": 450,
    "GET /2/trends/by/woeid/:id": 75,
    "GET /2/users/me": 75,
    "POST /2/tweets": 100,
    "POST /2/users/:id/likes": 50,
}
WINDOW_S = 900

_EPOCH_MS = 1288834974657  # X's snowflake epoch
_MENTION = re.compile(r"(?<![\w@])@(\w{1,15})")
_HASHTAG = re.compile(r"(?<![\w#&])#(\w*[^\W\d_]\w*)")
_URL = re.compile(r"https?://[^\s]+")
WORD = re.compile(r"\w+")


def snowflake(when: datetime, seq: int) -> str:
    ms = int(when.timestamp() * 1000) - _EPOCH_MS
    return str((ms << 22) | ((seq % 4096) << 0) | (1 << 17))


def iso_ms(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


_GRAPHEME = regex.compile(r"\X")
_EMOJI_PART = regex.compile(
    r"[\p{Extended_Pictographic}\p{Emoji_Presentation}\p{Regional_Indicator}\u20E3]"
)


@functools.lru_cache(maxsize=8192)  # the same corpus texts are rendered on every request
def weighted_length(text: str) -> int:
    """X's weighting (twitter-text v3), compactly: a URL counts 23, an emoji (one grapheme,
    ZWJ sequences included) 2, code points up to U+10FF and a few punctuation ranges 1, the rest
    2. Enough for the emulator to refuse what X refuses; the server has the exact counter."""
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n"))
    total = 0
    for part in re.split(r"(https?://\S+)", text):
        if _URL.fullmatch(part):
            total += 23
            continue
        for cluster in _GRAPHEME.findall(part):
            if _EMOJI_PART.search(cluster) and not (len(cluster) == 1 and ord(cluster) <= 0xFF):
                total += 2
                continue
            for ch in cluster:
                cp = ord(ch)
                light = cp <= 4351 or 8192 <= cp <= 8205 or 8208 <= cp <= 8223 or 8242 <= cp <= 8247
                total += 1 if light else 2
    return total


@functools.lru_cache(maxsize=4096)
def truncate_weighted(text: str, limit: int) -> str:
    out = ""
    for ch in text:
        if weighted_length(out + ch) > limit:
            break
        out += ch
    return out.rstrip() + "…"


# -- the world both X emulators render ------------------------------------------------


@dataclass
class XUser:
    id: str
    username: str
    name: str
    created: datetime
    protected: bool = False


@dataclass
class XTweet:
    id: str
    author_id: str
    text: str
    created: datetime
    conversation_id: str
    reply_to: str | None = None
    reply_to_user: str | None = None
    quoted: str | None = None
    likes: int = 0
    retweets: int = 0
    deleted: bool = False
    lang: str = "en"
    reply_settings: str = "everyone"
    liked_by: set[str] = field(default_factory=set)

    def mentions(self, text: str | None = None) -> list[tuple[int, int, str]]:
        """(start, end, name) in ``text`` (the wrapped text, where entities point), or ours."""
        return [(m.start(), m.end(), m.group(1)) for m in _MENTION.finditer(text or self.text)]

    def hashtags(self, text: str | None = None) -> list[tuple[int, int, str]]:
        return [(m.start(), m.end(), m.group(1)) for m in _HASHTAG.finditer(text or self.text)]

    def urls(self) -> list[tuple[int, int, str]]:
        return [(m.start(), m.end(), m.group(0)) for m in _URL.finditer(self.text)]

    def wrapped(self) -> tuple[str, list[dict[str, Any]]]:
        """The text as X serves it, every link a t.co link (payloads/twitter/get-tweet.json),
        and entities.urls saying what each one stands for."""
        parts: list[str] = []
        links: list[dict[str, Any]] = []
        last = 0
        for start, end, url in self.urls():
            parts.append(self.text[last:start])
            at, short = sum(map(len, parts)), f"https://t.co/{zlib.crc32(url.encode()):010d}"
            parts.append(short)
            shown = url.split("//", 1)[-1][:26]
            links.append(
                {
                    "start": at,
                    "end": at + 23,
                    "url": short,
                    "expanded_url": url,
                    "display_url": shown,
                }
            )
            last = end
        return "".join(parts) + self.text[last:], links
