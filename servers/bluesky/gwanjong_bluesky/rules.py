"""Who may act where on Bluesky: the rules, and the per-target checks (summoned, reply gates)."""

from __future__ import annotations

import re
from typing import Any

from gwanjong_bluesky.posts import MENTION, authority, dig
from gwanjong_bluesky.session import BlueskyClient
from gwanjong_bluesky.threads import View, target_view
from gwanjong_shared.contract import ActionRule, Limit, LimitName, errors
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.kit.target_cache import TargetCache

MAX_GRAPHEMES = 300  # app.bsky.feed.post text: maxGraphemes
MAX_TEXT_BYTES = 3000  # ... and maxLength, which Lexicon counts in UTF-8 bytes

POST_RULE = ActionRule(
    allowed="auto",
    reason="Bluesky welcomes automated accounts that post to their own profile (bsky-docs, "
    "'bots' guide); it asks that such accounts carry the 'bot' self-label.",
)
COMMENT_RULE = ActionRule(
    allowed="summoned",
    reason="Bluesky asks bots to reply only when the user has tagged the bot account: an opt-in "
    "interaction, or it is taken for spam (bsky-docs, 'bots' guide). A program may reply only to "
    "a post that mentions or quotes our account, and never where the author's reply gate "
    "(threadgate) shuts us out.",
)
UPVOTE_RULE = ActionRule(
    allowed="summoned",
    reason="Bluesky counts likes as interactions and asks bots to interact only with users who "
    "tagged the bot account (bsky-docs, 'bots' guide), so a program may like only a post that "
    "mentions or quotes our account.",
)
GATED_RULE = ActionRule(
    allowed="never",
    reason="The author's reply gate (threadgate) does not let our account reply to this thread; "
    "Bluesky would hide the reply, so nobody can post it from this account.",
)
LIMITS: dict[LimitName, Limit] = {
    "body": Limit(max=MAX_GRAPHEMES, unit="graphemes"),
    "comment": Limit(max=MAX_GRAPHEMES, unit="graphemes"),
}
# What `setup` may save for this server (never endpoints: those come from the operator).
CREDENTIALS = ["BLUESKY_HANDLE", "BLUESKY_APP_PASSWORD"]


def summons(view: dict[str, Any], did: str, handle: str) -> bool:
    """True when the post is ours, mentions our account, or quotes one of our posts."""
    if dig(view, "author", "did") == did:
        return True
    record = view.get("record") or {}
    for facet in record.get("facets") or []:
        for feature in facet.get("features") or []:
            if feature.get("$type") == MENTION and feature.get("did") == did:
                return True
    pattern = rf"(?<![\w.@-])@{re.escape(handle)}(?![\w-]|\.\w)"
    if re.search(pattern, str(record.get("text") or ""), re.IGNORECASE):
        return True
    embed = record.get("embed") or {}
    quoted = dig(embed, "record", "uri") or dig(embed, "record", "record", "uri") or ""
    return authority(str(quoted)) == did


def strangers(text: str, facets: list[Any] | None, *asked: str) -> str | None:
    """Why ``text`` may not go out: a mention facet (it notifies) of someone but our account
    and the author it answers, ``asked`` by DID: an interaction they did not opt into."""
    data = text.encode("utf-8")
    others = sorted(
        data[f.index.byte_start : f.index.byte_end].decode("utf-8", "replace")
        for f in facets or []
        for feature in f.features
        if getattr(feature, "did", None) not in (None, *asked)
    )
    if not others:
        return None
    return (
        f"The text mentions {', '.join(others)}, who did not tag us: a mention notifies them, "
        "and Bluesky asks bots to interact only with people who tagged the bot account. Leave "
        "it out (a reply may mention the author it answers)."
    )


def reply_shut(view: dict[str, Any], did: str | None) -> bool:
    if dig(view, "viewer", "replyDisabled") is True:
        return True
    allow = dig(view, "threadgate", "record", "allow")
    return allow == [] and dig(view, "author", "did") != did


async def rule_for_target(
    client: BlueskyClient, cache: TargetCache[View], action: str, post_id: str, rule: ActionRule
) -> ActionRule:
    if not client.is_configured():
        try:  # a public AppView still says whether the target exists
            await target_view(client, cache, await client.uri(post_id))
        except PlatformError as exc:
            if exc.kind is not errors.ErrorKind.AUTH:
                raise
        return ActionRule(
            allowed="human",
            reason=f"{rule.reason} No Bluesky account is configured, so this server cannot "
            "tell whether the post summoned us.",
        )
    view = await target_view(
        client, cache, await client.uri(post_id)
    )  # a missing target is not_found
    did, handle = await client.me()
    if action == "write_comment" and reply_shut(view, did):
        return GATED_RULE
    if rule.allowed != "summoned" or summons(view, did, handle):
        return rule
    return ActionRule(
        allowed="human",
        reason=f"{rule.reason} This post does not mention or quote @{handle}, so a person "
        "must decide whether to interact.",
    )
