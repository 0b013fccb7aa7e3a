"""What Reddit is like, said by this server so the gateway needs no facts of its own."""

from __future__ import annotations

from gwanjong_shared.contract import HandleRules, Profile, SetupGuide

PROFILE = Profile(
    label="Reddit",
    writing_guide=[
        "Match the subreddit's tone and rules; many subreddits ban bots or self-promotion, check the sidebar.",
        "Reddit rewards substance: explain the why, with an example; markdown works.",
        "Never ask for or give votes; programs may not vote.",
    ],
    # Reddit's bottiquette: say that an account is automated, in a small footer.
    disclosure="\n\n^(Drafted with an AI assistant.)",
    setup=SetupGuide(
        where="https://www.reddit.com/prefs/apps",
        price="free with approval",
        access="New API access needs approval under the Responsible Builder Policy (since November 2025).",
        steps=[
            "Since November 2025 new API access needs Reddit's approval under the Responsible Builder Policy; apply with an honest description of the bot.",
            "With approval, create a 'script' app at reddit.com/prefs/apps; the client id is under the app name.",
            "100 requests per minute with OAuth; programs may never vote; follow each subreddit's bot rules.",
        ],
        credentials=[
            "REDDIT_CLIENT_ID",
            "REDDIT_CLIENT_SECRET",
            "REDDIT_USERNAME",
            "REDDIT_PASSWORD",
        ],
    ),
    # "u/name" and "/u/name" name the same user.
    handles=HandleRules(hosts=["reddit.com"], strip_prefixes=["/", "u/"]),
)
