"""Writing guides per platform, and the suggested approach for one thread.

The aim is a reply worth reading: specific, short, in the platform's tone, and honest
that it was written with an AI agent where the platform asks for that.
"""

from __future__ import annotations

from gwanjong_gateway.mood import Mood

COMMON = [
    "React to one concrete detail of the post (a line of code, a number, a claim) and say something the thread does not already say.",
    "Be short: one idea, two to four sentences. Cut any sentence that would fit under any other post.",
    "No generic praise ('Great post!'), no self-promotion, no link unless it answers a question asked.",
    "If you disagree, say what you saw and under which conditions; ask a real question if you are unsure.",
]

PLATFORM: dict[str, list[str]] = {
    "devto": [
        "Dev.to readers value practical detail: a snippet, a version number, a pitfall you hit.",
        "Comments here are written by a person: the gateway hands the text over for you to post in the browser.",
        "A new article needs a clear title (≤ 128 chars), at most 4 tags, and the AI-assistance disclosure DEV asks for.",
    ],
    "bluesky": [
        "300 graphemes; conversational and friendly, like talking to a colleague.",
        "Only reply or like when the post tagged our account: Bluesky asks bots for opt-in interaction.",
        "Links and @mentions become clickable facets automatically; keep at most one link.",
    ],
    "twitter": [
        "280 weighted characters: URLs count 23, Korean/CJK and emoji count 2 each.",
        "Programs may only reply when the post mentions or quotes our account; otherwise the text is handed to a person.",
        "Lead with the point; no hashtag stuffing (one tag at most).",
    ],
    "reddit": [
        "Match the subreddit's tone and rules; many subreddits ban bots or self-promotion, check the sidebar.",
        "Reddit rewards substance: explain the why, with an example; markdown works.",
        "Never ask for or give votes; programs may not vote.",
    ],
}

FALLBACK = [
    "Follow this platform's own rules for automated accounts and disclose automation where it asks."
]


def guide(platform: str) -> list[str]:
    return COMMON + PLATFORM.get(platform, FALLBACK)


def approach(title: str, body: str, mood: Mood, comments: int) -> str:
    asks = "?" in title or "?" in body[:600]
    if comments == 0:
        start = "Nobody has answered yet: be the first useful reply"
    elif mood.label == "mixed":
        start = "The thread is split: acknowledge the strongest opposing point before adding yours"
    elif mood.label == "negative":
        start = "The mood is critical: stay calm and factual, add evidence rather than opinion"
    else:
        start = "The thread is friendly: build on the best comment with a concrete addition"
    then = (
        "answer the question the author asks directly"
        if asks
        else "add one experience or detail the post is missing"
    )
    return f"{start}; {then}."
