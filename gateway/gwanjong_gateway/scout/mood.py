"""The thread's mood, from VADER sentiment over its comments."""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol

# VADER ships no types (no stubs exist); _Scorer below types what we use of it.
from vaderSentiment.vaderSentiment import (  # pyright: ignore[reportMissingTypeStubs]
    SentimentIntensityAnalyzer,
)

from gwanjong_gateway.scout.scout_results import MoodView


class _Scorer(Protocol):
    """What we use of VADER (untyped): scores by name, "compound" among them."""

    def polarity_scores(self, text: str) -> dict[str, float]: ...


@lru_cache(maxsize=1)
def _analyzer() -> _Scorer:
    return SentimentIntensityAnalyzer()


def thread_mood(texts: list[str]) -> MoodView:
    """VADER is English-only; other languages mostly score neutral, which the label says."""
    if not texts:
        return MoodView(
            label="quiet (no comments yet)", compound=0, positive=0, negative=0, neutral=0
        )
    scores = [_analyzer().polarity_scores(t)["compound"] for t in texts]
    pos = sum(1 for s in scores if s >= 0.05)
    neg = sum(1 for s in scores if s <= -0.05)
    neu = len(scores) - pos - neg
    mean = sum(scores) / len(scores)
    if pos and neg and min(pos, neg) / max(pos, neg) >= 0.5:
        label = "mixed"
    elif mean >= 0.05:
        label = "positive"
    elif mean <= -0.05:
        label = "negative"
    else:
        label = "neutral"
    return MoodView(label=label, compound=round(mean, 3), positive=pos, negative=neg, neutral=neu)
