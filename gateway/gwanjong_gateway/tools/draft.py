"""draft: read one scouted discussion before replying, and keep what strike needs of it
(the post as draft saw it, the platform's rules and footer) under the same handle."""

from __future__ import annotations

from gwanjong_gateway.scout import opportunities as scouting
from gwanjong_gateway.scout.scout_results import DraftResult
from gwanjong_gateway.scout.state import Workflow
from gwanjong_gateway.tools.served import Served
from gwanjong_shared.pipeline import Stored


async def draft(served: Served, opportunity_id: str, state: Workflow) -> Stored[DraftResult]:
    # the source found it by handle, or refused the call (scout/handles.py)
    opportunity = state.opportunities[opportunity_id.strip()]
    shown, context = await scouting.draft(served.gw.upstreams, opportunity, served.config)
    return Stored(shown, store={"contexts": {opportunity.handle: context}})
