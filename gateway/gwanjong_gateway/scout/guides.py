"""The writing guide for one platform, and the suggested approach for one thread.

The aim is a reply worth reading: specific, short, in the platform's tone, and honest
that it was written with an AI agent where the platform asks for that. What each
platform asks comes from its own server (its capabilities profile).
"""

from __future__ import annotations

from gwanjong_gateway.scout.scout_results import MoodView
from gwanjong_shared.contract import Profile
from gwanjong_shared.contract.untrusted import one_line

MAX_LINES = 12
LINE_CHARS = 400

COMMON = [
    "React to one concrete detail of the post (a line of code, a number, a claim) and say something the thread does not already say.",
    "Be short: one idea, two to four sentences. Cut any sentence that would fit under any other post.",
    "No generic praise ('Great post!'), no self-promotion, no link unless it answers a question asked.",
    "If you disagree, say what you saw and under which conditions; ask a real question if you are unsure.",
]

FALLBACK = [
    "Follow this platform's own rules for automated accounts and disclose automation where it asks."
]


def guide(profile: Profile) -> list[str]:
    """The common advice plus the platform's own writing guide (from its profile)."""
    own = profile.writing_guide[:MAX_LINES]
    # The server's own words, cleaned and bounded like any text from outside the gateway.
    return COMMON + ([one_line(line, LINE_CHARS) for line in own] or FALLBACK)


def approach(title: str, body: str, mood: MoodView, comments: int) -> str:
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
