"""X API v2 payload shapes: tweets and users with only the requested fields, expansions."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from gwanjong_sandbox.twitter.core import TwitterCore
from gwanjong_sandbox.twitter.http import (
    invalid_request,
    not_found_error,
)
from gwanjong_sandbox.twitter.model import (
    EXPANSIONS,
    TWEET_FIELDS,
    USER_FIELDS,
    XTweet,
    XUser,
    iso_ms,
    truncate_weighted,
    weighted_length,
)


class TwitterWire(TwitterCore):
    """Renders the world as v2 answers (payloads/twitter)."""

    @staticmethod
    def _fields(request: Request, name: str, allowed: set[str]) -> tuple[set[str], Response | None]:
        raw = request.query_params.get(name)
        if raw is None:
            return set(), None
        values = {v for v in raw.split(",") if v}
        bad = sorted(values - allowed)
        if bad:
            return set(), invalid_request(
                name,
                bad[0],
                f"The `{name}` query parameter value [{bad[0]}] is not one of "
                f"[{','.join(sorted(allowed))}]",
            )
        return values, None

    def render_tweet(self, t: XTweet, fields: set[str]) -> dict[str, Any]:
        w = self.world
        long_post = weighted_length(t.text) > 280
        text, links = t.wrapped()
        out: dict[str, Any] = {
            "id": t.id,
            "text": truncate_weighted(text, 275) if long_post else text,
            "edit_history_tweet_ids": [t.id],
        }
        if "author_id" in fields:
            out["author_id"] = t.author_id
        if "conversation_id" in fields:
            out["conversation_id"] = t.conversation_id
        if "created_at" in fields:
            out["created_at"] = iso_ms(t.created)
        if "lang" in fields:
            out["lang"] = t.lang
        if "reply_settings" in fields:
            out["reply_settings"] = t.reply_settings
        if "possibly_sensitive" in fields:
            out["possibly_sensitive"] = False
        if "public_metrics" in fields:
            out["public_metrics"] = {
                "retweet_count": t.retweets,
                "reply_count": w.reply_count(t.id),
                "like_count": t.likes,
                "quote_count": w.quote_count(t.id),
                "bookmark_count": 0,
                "impression_count": 40 * t.likes + 17,
            }
        if "entities" in fields:
            entities: dict[str, Any] = {}
            if t.mentions(text):
                entities["mentions"] = [
                    {
                        "start": s,
                        "end": e,
                        "username": n,
                        **({"id": u.id} if (u := w.by_username(n)) else {}),
                    }
                    for s, e, n in t.mentions(text)
                ]
            if t.hashtags(text):
                entities["hashtags"] = [
                    {"start": s, "end": e, "tag": h} for s, e, h in t.hashtags(text)
                ]
            if links:
                entities["urls"] = links
            if entities:
                out["entities"] = entities
        if "referenced_tweets" in fields:
            refs = []
            if t.reply_to:
                refs.append({"type": "replied_to", "id": t.reply_to})
            if t.quoted:
                refs.append({"type": "quoted", "id": t.quoted})
            if refs:
                out["referenced_tweets"] = refs
        if "in_reply_to_user_id" in fields and t.reply_to_user:
            out["in_reply_to_user_id"] = t.reply_to_user
        if "note_tweet" in fields and long_post:
            note: dict[str, Any] = {"text": text, "entities": {"urls": links}}
            if t.hashtags(text):
                note["entities"]["hashtags"] = [
                    {"start": s, "end": e, "tag": h} for s, e, h in t.hashtags(text)
                ]
            out["note_tweet"] = note
        return out

    def render_user(self, u: XUser, fields: set[str]) -> dict[str, Any]:
        out: dict[str, Any] = {"id": u.id, "name": u.name, "username": u.username}
        if "created_at" in fields:
            out["created_at"] = iso_ms(u.created)
        if "description" in fields:
            out["description"] = ""
        if "verified" in fields:
            out["verified"] = False
        if "protected" in fields:
            out["protected"] = u.protected
        if "profile_image_url" in fields:
            out["profile_image_url"] = f"https://pbs.twimg.com/profile_images/{u.id}/normal.jpg"
        return out

    def _payload(
        self, request: Request, tweets: list[XTweet]
    ) -> tuple[dict[str, Any], Response | None]:
        tweet_fields, error = self._fields(request, "tweet.fields", TWEET_FIELDS)
        if error:
            return {}, error
        user_fields, error = self._fields(request, "user.fields", USER_FIELDS)
        if error:
            return {}, error
        expansions, error = self._fields(request, "expansions", EXPANSIONS)
        if error:
            return {}, error
        w = self.world
        body: dict[str, Any] = {"data": [self.render_tweet(t, tweet_fields) for t in tweets]}
        users: dict[str, XUser] = {}
        includes_tweets: dict[str, XTweet] = {}
        errors: list[dict[str, Any]] = []
        for t in tweets:
            if "author_id" in expansions:
                users.setdefault(t.author_id, w.users[t.author_id])
            if "in_reply_to_user_id" in expansions and t.reply_to_user:
                users.setdefault(t.reply_to_user, w.users[t.reply_to_user])
            if "entities.mentions.username" in expansions:
                for _s, _e, name in t.mentions():
                    if (u := w.by_username(name)) is not None:
                        users.setdefault(u.id, u)
            if "referenced_tweets.id" in expansions:
                for ref in (t.reply_to, t.quoted):
                    if not ref:
                        continue
                    target = w.live(ref)
                    if target is None:
                        errors.append(not_found_error(ref, "referenced_tweets.id"))
                        continue
                    includes_tweets.setdefault(ref, target)
                    if "referenced_tweets.id.author_id" in expansions:
                        users.setdefault(target.author_id, w.users[target.author_id])
        includes: dict[str, Any] = {}
        if users:
            includes["users"] = [self.render_user(u, user_fields) for u in users.values()]
        if includes_tweets:
            includes["tweets"] = [
                self.render_tweet(t, tweet_fields) for t in includes_tweets.values()
            ]
        if includes:
            body["includes"] = includes
        if errors:
            body["errors"] = errors
        return body, None
