"""What one client's workflow keeps on the server between scout, draft and strike."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import Field

from gwanjong_gateway.scout.scout_results import RuleView
from gwanjong_shared.contract import Action, Capabilities
from gwanjong_shared.contract.models import Post
from gwanjong_shared.pipeline import PipelineState


@dataclass(frozen=True)
class Opportunity:
    id: str
    post: Post
    score: float
    reason: str
    #: from the inbox: the post mentions, quotes or replies to us
    summoned: bool = False
    #: what the model calls it: a server-minted handle (scout/handles.py); "" before
    #: scout mints one (and for a write a person approved from the record)
    handle: str = ""

    @property
    def ref(self) -> str:
        """The id to give the model in a hint: the handle, else the stable id."""
        return self.handle or self.id


@dataclass
class DraftContext:
    opportunity: Opportunity
    #: None when draft could not read them
    capabilities: Capabilities | None
    #: the verdicts draft got, by action (comment, upvote): strike keeps them
    validation: dict[str, RuleView]
    #: what the model saw, for the audit
    shown: dict[str, Any] = field(default_factory=dict[str, Any])

    def never_reason(self, action: str, tool: Action) -> str:
        """The reason, when draft already learned that the platform never allows this
        action (`tool` is its contract name); "" otherwise."""
        rule = self.validation.get(action)
        if rule is None and self.capabilities is not None:
            base = self.capabilities.actions.get(tool)
            rule = RuleView(allowed=base.allowed, reason=base.reason) if base else None
        if rule is None or rule.allowed != "never":
            return ""
        return rule.reason or f"{self.opportunity.post.platform} does not allow this."


class Workflow(PipelineState):
    opportunities: dict[str, Opportunity] = Field(default_factory=dict)
    contexts: dict[str, DraftContext] = Field(default_factory=dict)
