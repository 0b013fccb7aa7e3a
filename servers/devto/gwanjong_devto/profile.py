"""What Dev.to is like, said by this server so the gateway needs no facts of its own."""

from __future__ import annotations

from gwanjong_shared.contract import HandleRules, Profile, SetupGuide

PROFILE = Profile(
    label="Dev.to",
    writing_guide=[
        "Dev.to readers value practical detail: a snippet, a version number, a pitfall you hit.",
        "Comments here are written by a person: the gateway hands the text over for you to post in the browser.",
        "Each new article is sent only once a person approves it: dev.to asks that the account holder authorise every publish.",
        "A new article needs a clear title (≤ 128 chars), at most 4 tags, and the AI-assistance disclosure DEV asks for.",
    ],
    # DEV's guidelines ask authors to disclose AI assistance in the article. Every article is
    # approved by a person before it is sent (POST_RULE), never merely "reviewed by the author":
    # the approver need not have written it, and llms.txt says approving is not authoring.
    disclosure="\n\n---\n*Drafted with an AI assistant (gwanjong); a person approved it before "
    "it was published.*",
    setup=SetupGuide(
        where="https://dev.to/settings/extensions",
        price="free",
        access="An API key publishes articles only; comments and reactions are for people.",
        steps=[
            "Sign in at dev.to, open Settings > Extensions > 'DEV Community API Keys', name a key and generate it.",
            "The API publishes articles only; comments and reactions are not available to programs (gwanjong hands those to you).",
            "Rate limits: about 30 reads per minute and 1 write per second per key.",
        ],
        credentials=["DEVTO_API_KEY"],
    ),
    handles=HandleRules(aliases=["dev.to"], hosts=["dev.to"]),
)
