"""What Mastodon is like, said by this server so the gateway needs no facts of its own.

The profile depends on the instance: its rules (read at start) join the writing guide, and
the disclosure footer is the instance's (``MASTODON_DISCLOSURE``, empty by default: the
account's bot flag, which every write requires, is Mastodon's own disclosure, shown as the
"Automated" badge, as Bluesky's bot self-label is there).
"""

from __future__ import annotations

from gwanjong_shared.contract import HandleRules, Profile, SetupGuide

#: how a person sets the flag every write requires
BOT_FLAG_HOWTO = (
    'In the web app: Preferences > Profile > tick "This is an automated account" (the bot '
    "flag) and save."
)
#: what people write in their bio or name to say "no automated replies"
OPT_OUT_TAGS = ("#nobot", "#noai")

GUIDE = [
    "The instance's own character limit (capabilities: limits) counts every URL as 23 "
    "characters and a mention @user@domain as @user.",
    "Plain text, conversational; hashtags in CamelCase (#OpenSource) so screen readers read them.",
    "Writes only from an account flagged as a bot; replies only to public statuses with no "
    "content warning (others are a person's), and never to anyone who put #nobot(s) or "
    "#noai in their bio, name or profile fields.",
    "Mention no one but the author you answer: a mention notifies, and a bot's unasked one "
    "is spam (refused).",
]


def build_profile(label: str, disclosure: str, rules: list[str], host: str = "") -> Profile:
    """``host``: the instance's domain; its local accounts may be written without it
    (an opt-out entry `mastodon:@ann@fosstodon.org` also names `ann` seen on fosstodon)."""
    guide = [*GUIDE]
    if rules:
        guide.append(f"{label}'s rules: " + " ".join(f"({i}) {r}" for i, r in enumerate(rules, 1)))
    return Profile(
        label=label,
        writing_guide=guide,
        disclosure=disclosure,
        setup=SetupGuide(
            where="Your instance: Preferences > Development > New application",
            price="free",
            access="Any account on the instance; automated accounts must carry the bot flag, "
            "and many instances' rules say more about bots (read them first).",
            steps=[
                # setup saves only the token: say where it goes, and how to point it elsewhere
                f"The token is checked with {host or 'the instance'} (MASTODON_API_BASE_URL). "
                "If your account is on another, set that first in gateway.toml: "
                '[platforms.mastodon] env = { MASTODON_API_BASE_URL = "https://fosstodon.org" }.',
                "Preferences > Development > New application: scopes read and write; copy "
                "'Your access token' into MASTODON_ACCESS_TOKEN.",
                BOT_FLAG_HOWTO,
                "People who write #nobot or #noai in their bio are never answered.",
            ],
            credentials=["MASTODON_ACCESS_TOKEN"],
        ),
        handles=HandleRules(
            aliases=["fediverse", "masto"],
            hosts=[host] if host else [],
            strip_suffixes=[f"@{host}"] if host else [],
        ),
    )


#: the profile before the instance's rules are read (the setup guide, the credentials)
PROFILE = build_profile("Mastodon", "", [])
