"""Pipeline state for FastMCP servers: tools that declare what they store and require.

An LLM runs a multi-step workflow in a few calls while the bulky intermediate data stays
on the server::

    class Research(PipelineState):
        hits: dict[str, Doc] = Field(default_factory=dict)

    mcp = FastMCP("research")
    pipeline = Pipeline(mcp, Research)          # also registers a read-only `status` tool

    @pipeline.tool(stores="hits")
    async def search(query: str) -> Stored[list[str]]:
        docs = await find(query)
        return Stored([d.title for d in docs], store={"hits": {d.id: d for d in docs}})

    @pipeline.tool(requires="hits")
    async def read(doc_id: str, state: Research) -> str:
        return state.hits[doc_id].body

Calling `read` first fails with "`read` needs `hits`, which is empty. Call `search`
first." The `state` parameter is injected (`Depends`) and absent from the input schema.

Whose state (details in `gwanjong_shared.pipeline.keys`): handshake-era clients are
keyed by their MCP session id. Requests without a session (the 2026-07-28 era, or a
`stateless_http` server) are keyed by the authenticated principal and/or an
`X-Gwanjong-Session` header; stdio and in-memory servers without either use one
process-wide bucket; anonymous HTTP calls without the header are refused rather than
pooled. That is the default source (`MemoryStates`); a server can keep its state elsewhere
(`StateSource`: e.g. in a database, one row per server-minted handle, so restarts and
replicas keep the workflow). Idle clients are forgotten after `ttl` seconds (default one hour) and
at most `max_clients` (default 1000) are kept, at most 100 of one signed-in principal
(StateStore.max_per_principal). Calls of one client run one at a time.
"""

from gwanjong_shared.pipeline.graph import (
    NeedsPreviousStep,
    ToolSpec,
    describe,
    describe_counts,
    missing_message,
)
from gwanjong_shared.pipeline.keys import DEFAULT_CLIENT_KEY_HEADER, PROCESS_KEY, client_key
from gwanjong_shared.pipeline.pipeline import Pipeline, ToolOptions
from gwanjong_shared.pipeline.source import MemoryStates, StateSource, counts_of
from gwanjong_shared.pipeline.state import PipelineState, field_count, is_populated
from gwanjong_shared.pipeline.status import STATUS_DESCRIPTION, StatusExtra
from gwanjong_shared.pipeline.store import (
    DEFAULT_MAX_CLIENTS,
    DEFAULT_TTL_SECONDS,
    Bucket,
    StateStore,
)
from gwanjong_shared.pipeline.stored import Stored, apply_outcome

__all__ = [
    "DEFAULT_CLIENT_KEY_HEADER",
    "DEFAULT_MAX_CLIENTS",
    "DEFAULT_TTL_SECONDS",
    "PROCESS_KEY",
    "STATUS_DESCRIPTION",
    "Bucket",
    "MemoryStates",
    "NeedsPreviousStep",
    "Pipeline",
    "PipelineState",
    "StateSource",
    "StateStore",
    "StatusExtra",
    "Stored",
    "ToolOptions",
    "ToolSpec",
    "apply_outcome",
    "client_key",
    "counts_of",
    "describe",
    "describe_counts",
    "field_count",
    "is_populated",
    "missing_message",
]
