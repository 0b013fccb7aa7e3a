"""What one client's workflow keeps on the server between scout, draft and strike."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import Field

from gwanjong_shared.models import Post
from gwanjong_shared.pipeline import PipelineState


@dataclass(frozen=True)
class Opportunity:
    id: str
    post: Post
    score: float
    reason: str
    #: from the inbox: the post mentions, quotes or replies to us
    summoned: bool = False


@dataclass
class DraftContext:
    opportunity: Opportunity
    capabilities: dict[str, Any]
    validation: dict[str, Any]
    shown: dict[str, Any] = field(default_factory=dict)  # what the model saw, for the audit


class Workflow(PipelineState):
    opportunities: dict[str, Opportunity] = Field(default_factory=dict)
    contexts: dict[str, DraftContext] = Field(default_factory=dict)
