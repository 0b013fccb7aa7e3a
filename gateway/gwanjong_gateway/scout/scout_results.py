"""What scout and draft answer: typed results (their output schemas come from these).

Titles, urls, authors and post text are platform text: cleaned and bounded where they
are built (scout/opportunities.py), fenced where the tool description says so.
"""

from __future__ import annotations

from typing import Literal

from gwanjong_gateway.config import WriteMode
from gwanjong_gateway.wire import Result, optional
from gwanjong_shared.contract import Allowed


class Found(Result):
    """One scouted discussion, in the short form the model sees."""

    id: str
    platform: str
    title: str
    url: str
    score: float
    comments_count: int
    reason: str
    summoned: bool | None = optional("from the inbox: it mentions or replies to us")


class ScoutResult(Result):
    opportunities: list[Found]
    errors: dict[str, str]
    hint: str | None = optional()


class TopComment(Result):
    author: str
    likes: int
    depth: int
    text: str


class MoodView(Result):
    """The thread's mood (scout/mood.py)."""

    label: str  # positive, negative, mixed, neutral, quiet
    compound: float  # mean VADER compound score, -1..1
    positive: int
    negative: int
    neutral: int


class LimitView(Result):
    max: int
    unit: str
    footer: int | None = optional("the disclosure footer's share, already taken off max")


class RuleView(Result):
    """What draft learned of one action on its target (unknown: it could not ask)."""

    allowed: Allowed | Literal["unknown"]
    reason: str


class StrikeView(Result):
    writes: WriteMode
    disclosure_appended: str | None
    actions: dict[str, RuleView]


class DraftResult(Result):
    opportunity_id: str
    platform: str
    url: str
    title: str
    author: str
    untrusted: str
    post: str
    top_comments: list[TopComment]
    comments_total: int
    mood: MoodView
    approach: str
    guide: list[str]
    limits: dict[str, LimitView]
    strike: StrikeView
    next: str
    warnings: dict[str, str] | None = optional()
