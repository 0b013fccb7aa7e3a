"""What Bluesky is like, said by this server so the gateway needs no facts of its own."""

from __future__ import annotations

from gwanjong_bluesky.label import BOT_LABEL_HOWTO
from gwanjong_shared.contract import HandleRules, Profile, SetupGuide

PROFILE = Profile(
    label="Bluesky",
    writing_guide=[
        "300 graphemes; conversational and friendly, like talking to a colleague.",
        "Only reply or like when the post tagged our account: Bluesky asks bots for opt-in interaction.",
        "Links become clickable facets automatically; keep at most one link. Mention no one but "
        "the author you answer: a mention notifies (refused).",
    ],
    # Bluesky discloses on the account (the `bot` self-label, which every write requires:
    # label.py), and every grapheme counts: no footer by default.
    disclosure="",
    setup=SetupGuide(
        where="Bluesky app: Settings > Privacy and security > App passwords",
        price="free",
        access="Bots reply or like only when tagged (opt-in interaction).",
        steps=[
            "In the Bluesky app: Settings > Privacy and security > App passwords > Add App Password. Never use your main password.",
            BOT_LABEL_HOWTO + " Every write requires it: it is Bluesky's disclosure.",
            "Bluesky asks bots to reply or like only when tagged; gwanjong hands other replies to you.",
        ],
        credentials=["BLUESKY_HANDLE", "BLUESKY_APP_PASSWORD"],
    ),
    # The default ".bsky.social" domain is optional to write, and "_" (not allowed in
    # handles) is read as "-": `mara_codes` also names `mara-codes.bsky.social`.
    handles=HandleRules(
        aliases=["bsky"],
        hosts=["bsky.app"],
        strip_suffixes=[".bsky.social"],
        replace={"_": "-"},
    ),
)
