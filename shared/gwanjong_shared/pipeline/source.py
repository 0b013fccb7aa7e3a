"""Where a pipeline's state lives between calls: `StateSource`, and the in-memory default.

A source answers three questions: who is calling (`caller`, resolved once per request,
before the tool runs), the state one call works on (`hold`, given the call's arguments,
so a source may find the state by an argument: a handle the server minted), and how
full the caller's state is (`counts`, for the status report).

`MemoryStates` keeps one state per client in this process (`StateStore`, keyed by
`keys.client_key`). A server that must survive restarts or serve one client from several
replicas supplies its own source, e.g. one that keeps the state in a database row per
handle and loads it for the handle a call names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Generic, Protocol, TypeVar

from fastmcp import Context

from gwanjong_shared.pipeline.graph import ToolSpec
from gwanjong_shared.pipeline.keys import client_key
from gwanjong_shared.pipeline.state import PipelineState, field_count
from gwanjong_shared.pipeline.store import StateStore

S = TypeVar("S", bound=PipelineState)
C = TypeVar("C")


class StateSource(Protocol[S, C]):  # pyright: ignore[reportInvalidTypeVarUse]
    def caller(self, ctx: Context) -> C:
        """Who is calling, as the source keys it; raises ToolError when it cannot tell."""
        ...

    def hold(
        self, caller: C, spec: ToolSpec, arguments: Mapping[str, Any]
    ) -> AbstractAsyncContextManager[S]:
        """The state `spec`'s tool works on in this call. What the tool stores into it is
        kept when the context exits normally (and only then)."""
        ...

    async def counts(self, caller: C) -> dict[str, int] | None:
        """How many items each field holds for `caller` (None: nothing kept yet)."""
        ...


def counts_of(state: PipelineState) -> dict[str, int]:
    return {name: field_count(getattr(state, name)) for name in state.field_names()}


class MemoryStates(Generic[S]):
    """One state per client, in this process's memory (`StateStore`)."""

    def __init__(self, store: StateStore[S], key: Callable[[Context], str] = client_key) -> None:
        self.store = store
        self._key = key

    def caller(self, ctx: Context) -> str:
        return self._key(ctx)

    def hold(
        self, caller: str, spec: ToolSpec, arguments: Mapping[str, Any]
    ) -> AbstractAsyncContextManager[S]:
        return self.store.hold(caller)

    async def counts(self, caller: str) -> dict[str, int] | None:
        # Peek, not create: asking for status must not allocate a bucket.
        state = self.store.peek(caller)
        return None if state is None else counts_of(state)
