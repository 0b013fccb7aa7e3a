"""The thread's mood, from VADER sentiment over its comments."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

# VADER ships no types (no stubs exist); _Scorer below types what we use of it.
from vaderSentiment.vaderSentiment import (  # pyright: ignore[reportMissingTypeStubs]
    SentimentIntensityAnalyzer,
)


class _Scorer(Protocol):
    """What we use of VADER (untyped): scores by name, "compound" among them."""

    def polarity_scores(self, text: str) -> dict[str, float]: ...


@lru_cache(maxsize=1)
def _analyzer() -> _Scorer:
    return SentimentIntensityAnalyzer()


@dataclass(frozen=True)
class Mood:
    label: str  # positive, negative, mixed, neutral
    compound: float  # mean VADER compound score, -1..1
    positive: int
    negative: int
    neutral: int


def thread_mood(texts: list[str]) -> Mood:
    """VADER is English-only; other languages mostly score neutral, which the label says."""
    if not texts:
        return Mood("quiet (no comments yet)", 0.0, 0, 0, 0)
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
    return Mood(label, round(mean, 3), pos, neg, neu)
