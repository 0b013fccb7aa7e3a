"""X API v2 emulator (what tweepy's AsyncClient talks to), plus the X world both X emulators share.

The world renders the seeded corpus as X posts: each thread is a post (title, blank line, body,
hashtags), each comment a reply whose ``referenced_tweets`` point at its parent. Ids are
64-bit snowflakes derived from the creation time, as on X. The web GraphQL emulator for
twikit (``gwanjong_sandbox.twikit``) renders the same world, so a reply written through the
official API shows up in a web read and both answer for the same ids.

Wire facts followed here (platform-wire.md §4a, payloads/twitter/):

- tweets carry ``id``, ``text``, ``edit_history_tweet_ids`` and only the requested fields;
  ``created_at`` is ``2026-11-27T09:00:00.000Z``; ids are strings;
- a missing or deleted tweet is **HTTP 200** with ``{"errors": [{"title": "Not Found Error", ...}]}``;
  a deleted parent named by an expansion comes back the same way, next to ``data``;
- an empty search is ``{"meta": {"result_count": 0}}`` (no ``data``); ``max_results`` must be
  10-100; ``next_token`` only when there is another page; a page is cut from the index hits,
  then what X may not show (deleted, by an author protected since) is dropped, so a page can
  come back short or empty with a ``next_token``;
- errors are problem objects (``application/problem+json``) and every answer carries
  ``x-rate-limit-limit/remaining/reset`` (reset in epoch seconds), per endpoint and 15-min window;
- writes need OAuth 1.0a user context (the HMAC-SHA1 signature is checked over the original
  ``https://api.twitter.com`` URL); app-only bearer tokens are refused for them;
- since 2026-02-23 a programmatic reply is refused (403) unless the target post mentions or
  quotes the replying account; duplicate text and text over 280 weighted characters are 403.

Modules: ``model`` (credentials, field sets, limits, ids, weighted length), ``world`` (the
shared X world), ``query`` (search operators), ``http`` (OAuth 1.0a, problem errors, 429s),
``core`` (state and guard), ``wire`` (payload shapes), ``reads``, ``writes``, ``mentions``
(handlers by concern) and ``routes`` (the route table).
"""

from gwanjong_sandbox.twitter.model import (
    ACCESS_SECRET,
    ACCESS_TOKEN,
    API_KEY,
    API_SECRET,
    BEARER,
    ME,
    ME_ID,
    MISSING_ID,
    READER,
    READER_ID,
    XTweet,
    XUser,
)
from gwanjong_sandbox.twitter.routes import TwitterEmulator
from gwanjong_sandbox.twitter.world import XWorld, world_for

__all__ = [
    "ACCESS_SECRET",
    "ACCESS_TOKEN",
    "API_KEY",
    "API_SECRET",
    "BEARER",
    "ME",
    "ME_ID",
    "MISSING_ID",
    "READER",
    "READER_ID",
    "TwitterEmulator",
    "XTweet",
    "XUser",
    "XWorld",
    "world_for",
]
