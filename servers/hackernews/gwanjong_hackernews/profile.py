"""What Hacker News is like, said by this server so the gateway needs no facts of its own.

HN is a place gwanjong reads and never writes: its guidelines ask for conversation between
humans, so every write action is `never` and the person is told to write in their own words.
"""

from __future__ import annotations

from gwanjong_shared.contract import ActionRule, HandleRules, Profile, SetupGuide

#: HN's guideline, quoted (news.ycombinator.com/newsguidelines.html, since 2026-03-11)
GUIDELINE = (
    "Don't post generated comments or AI-edited comments. HN is for conversation between humans."
)
#: what every write answers: refused, with the guideline and what the person can do instead
NEVER = ActionRule(
    allowed="never",
    reason=(
        f'Hacker News\'s guidelines (since 2026-03-11): "{GUIDELINE}" HN also has no write '
        "API. gwanjong never writes there and hands over no text to paste: if you want to "
        "join this discussion, read it on news.ycombinator.com and write your own words."
    ),
)

PROFILE = Profile(
    label="Hacker News",
    writing_guide=[
        f'Hacker News is read-only for gwanjong. Its guidelines say: "{GUIDELINE}"',
        "Do not write a comment or a story for Hacker News, not even a draft for a person to "
        "paste: summarise the thread and the points worth answering instead.",
        "If the person wants to join in, they read the thread and write in their own words on "
        "news.ycombinator.com; nothing is posted from here.",
    ],
    disclosure="",  # nothing is ever written: no footer to append
    setup=SetupGuide(
        where="https://news.ycombinator.com",
        price="free",
        access="No key: both APIs (Firebase and Algolia) are public and read-only. A username "
        "only points the inbox at replies to your own stories and comments.",
        steps=[
            "Reading (search, trending, threads) needs nothing.",
            "For the inbox, set HACKERNEWS_USERNAME to your HN username (case-sensitive, as "
            "shown on news.ycombinator.com/user?id=...). No password: nothing is ever posted.",
            "Algolia allows 10,000 requests an hour per IP; the Firebase API publishes no limit.",
        ],
        credentials=["HACKERNEWS_USERNAME"],
    ),
    handles=HandleRules(aliases=["hn", "ycombinator"]),
)
