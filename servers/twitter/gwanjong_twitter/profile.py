"""What X is like, said by this server so the gateway needs no facts of its own."""

from __future__ import annotations

from gwanjong_shared.contract import HandleRules, Prices, Profile, SetupGuide

PROFILE = Profile(
    label="X",
    writing_guide=[
        "280 weighted characters: URLs count 23, Korean/CJK and emoji count 2 each.",
        "Programs may only reply once X approved the app for AI-generated replies, and only when the post mentions or quotes our account; otherwise the text is handed to a person.",
        "@mention no one but the author you answer: X restricts a program's mentions (refused).",
        "Lead with the point; no hashtag stuffing (one tag at most).",
    ],
    # X discloses on the account (the "Automated" label), and every character counts:
    # no footer by default.
    disclosure="",
    setup=SetupGuide(
        where="https://developer.x.com",
        price="Pay-per-use as of 2026-04: about $0.005 per post read, $0.015 per post created, $0.01 per summoned reply.",
        access="Programmatic replies only once X approved the app for AI-generated replies, and only when the post mentions or quotes the account; no likes on self-serve tiers.",
        steps=[
            "Create a project and app at developer.x.com; new developers get pay-per-use credits (no free tier since 2026-02).",
            "Pricing as of 2026-04: about $0.005 per post read, $0.015 per post created, $0.01 per summoned reply.",
            "Enable OAuth 1.0a read+write and generate the access token and secret for the posting account; set the 'Automated' account label.",
            "Programmatic replies are allowed only when the post mentions or quotes the account; likes are not available on self-serve tiers.",
            "AI-generated replies need X's prior approval (its Policy Support form); once X approved the app, set TWITTER_AI_REPLIES_APPROVED=true. Until then you send every reply yourself.",
        ],
        credentials=[
            "TWITTER_BEARER_TOKEN",
            "TWITTER_API_KEY",
            "TWITTER_API_SECRET",
            "TWITTER_ACCESS_TOKEN",
            "TWITTER_ACCESS_SECRET",
        ],
    ),
    handles=HandleRules(aliases=["x"], hosts=["x.com", "twitter.com"]),
    # X's pay-per-use rates as its own pricing page lists them: reads per Post returned
    # ("Posts: Read"), writes per request ("Content: Create", and "with URL" for a post
    # holding a link; a like is "User Interaction: Create" at the same $0.015). X changes
    # them: an operator overrides any figure in gateway.toml ([prices.twitter]).
    prices=Prices(  # micro-dollars
        read=5_000,  # $0.005 per post
        write=15_000,  # $0.015 per request
        write_with_url=200_000,  # $0.200 per request
        source="https://docs.x.com/x-api/getting-started/pricing",
        as_of="2026-12-02",
    ),
)
