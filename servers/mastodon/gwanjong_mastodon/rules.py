"""What a program may do on Mastodon: the action rules, an author's opt-out tag, and the
statuses a reply could not show a person as they are."""

from __future__ import annotations

import re
from typing import Any

from gwanjong_mastodon.profile import OPT_OUT_TAGS
from gwanjong_mastodon.statuses import text_of
from gwanjong_shared.contract import ActionRule

POST_RULE = ActionRule(
    allowed="auto",
    reason="Mastodon welcomes automated accounts that post to their own timeline when the "
    "account carries the bot flag (shown as 'Automated'); this server writes only from such an "
    "account.",
)
REPLY_RULE = ActionRule(
    allowed="summoned",
    reason="On Mastodon unsolicited replies from bots are taken as spam: a program may reply "
    "only to a status that mentions our account or answers one of ours (a public one with no "
    "content warning; others are a person's), and never to anyone with #nobot or #noai in "
    "their profile.",
)
FAVOURITE_RULE = ActionRule(
    allowed="summoned",
    reason="A favourite notifies its author: a program may favourite only a status that "
    "mentions our account or answers one of ours, and never one by someone with #nobot or "
    "#noai in their profile (bio, name or fields).",
)


def opted_out(account: dict[str, Any]) -> str | None:
    """The opt-out tag an author carries in their bio, display name or profile fields (a
    field's name is text, its value HTML), if any; #nobots says it too."""
    fields = [f for f in account.get("fields") or [] if isinstance(f, dict)]
    parts = [text_of(str(account.get("note") or "")), str(account.get("display_name") or "")]
    parts += [f"{f.get('name') or ''} {text_of(str(f.get('value') or ''))}" for f in fields]
    text = " ".join(parts).lower()
    return next((tag for tag in OPT_OUT_TAGS if re.search(rf"{tag}s?\b", text)), None)


def unshown(status: dict[str, Any]) -> str | None:
    """Why a reply to ``status`` is a person's, or None: it would have to keep the status's
    audience (narrower than public: never widened) or its content warning, and an approval
    shows every write as public with no warning, so it could not show what is sent."""
    visibility, cw = str(status.get("visibility") or ""), str(status.get("spoiler_text") or "")
    kept = [f"its audience ({visibility!r})"] if visibility != "public" else []
    kept += [f"its content warning ({cw!r})"] if cw else []
    if not kept:
        return None
    return (
        f"A reply to this status would keep {' and '.join(kept)}, and an approval shows a "
        "write as public with no content warning, so it could not show what is sent: a "
        "person answers in their own client, which keeps both."
    )
