"""`Pipeline`: stateful, ordered tools on any FastMCP server."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from types import MappingProxyType
from typing import Any, Generic, TypedDict, TypeVar, overload

from fastmcp import Context, FastMCP
from fastmcp.dependencies import CurrentContext, Depends
from mcp.types import Icon, ToolAnnotations
from typing_extensions import Unpack

from gwanjong_shared.pipeline.graph import (
    NeedsPreviousStep,
    ToolSpec,
    describe,
    describe_counts,
    missing_message,
)
from gwanjong_shared.pipeline.keys import DEFAULT_CLIENT_KEY_HEADER, client_key
from gwanjong_shared.pipeline.source import MemoryStates, StateSource
from gwanjong_shared.pipeline.state import PipelineState
from gwanjong_shared.pipeline.status import STATUS_DESCRIPTION, StatusExtra, merge_extra
from gwanjong_shared.pipeline.store import (
    DEFAULT_MAX_CLIENTS,
    DEFAULT_TTL_SECONDS,
    StateStore,
)
from gwanjong_shared.pipeline.stored import apply_outcome
from gwanjong_shared.pipeline.wrap import (
    call_user_function,
    find_state_parameter,
    registrable,
    type_hints,
)
from gwanjong_shared.tool_templates import add_tool

S = TypeVar("S", bound=PipelineState)
F = TypeVar("F", bound=Callable[..., Any])

# One shared provider (it is stateless); a call in each default would trip ruff's B008.
_CURRENT_CONTEXT: Context = CurrentContext()


class ToolOptions(TypedDict, total=False):
    """The `FastMCP.tool(...)` options a pipeline tool passes through."""

    name: str
    title: str
    description: str
    icons: list[Icon]
    tags: set[str]
    annotations: ToolAnnotations | dict[str, Any]
    meta: dict[str, Any]
    timeout: float
    output_schema: dict[str, Any] | None


def _names(value: str | Sequence[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


class Pipeline(Generic[S]):
    """Per-client workflow state and ordered tools on top of a FastMCP server.

    Args:
        server: the server the tools are registered on.
        state: the `PipelineState` subclass; each client gets a fresh instance.
        status_tool: name of the auto-registered read-only status tool; None registers
            none (the server can build its own from `describe`).
        status_description: replaces the default status description.
        status_extra: called with the request's Context; its keys are added to the
            status report (e.g. backend health). Sync or async.
        ttl: seconds of idleness after which a client's state is forgotten.
        max_clients: most clients kept at once; least recently used idle ones go first.
        clock: monotonic seconds; injectable for tests.
        client_key_header: the HTTP header a modern-era (2026-07-28) client sends to say
            which state is its own (see `gwanjong_shared.pipeline.keys`).
        source: where the state lives (`gwanjong_shared.pipeline.source`); default: one
            state per client in this process's memory, built from the four options above.
    """

    def __init__(
        self,
        server: FastMCP,
        state: type[S],
        *,
        status_tool: str | None = "status",
        status_description: str = STATUS_DESCRIPTION,
        status_extra: StatusExtra | None = None,
        ttl: float = DEFAULT_TTL_SECONDS,
        max_clients: int = DEFAULT_MAX_CLIENTS,
        clock: Callable[[], float] = time.monotonic,
        client_key_header: str = DEFAULT_CLIENT_KEY_HEADER,
        source: StateSource[S, Any] | None = None,
    ) -> None:
        self.server = server
        self.state_type = state
        self.client_key_header = client_key_header
        self.memory: MemoryStates[S] | None = None
        if source is None:
            store = StateStore(state, ttl=ttl, max_clients=max_clients, clock=clock)
            source = self.memory = MemoryStates(store, self.key_for)
        self.source: StateSource[S, Any] = source
        self._specs: dict[str, ToolSpec] = {}
        self._status_extra = status_extra
        if status_tool is not None:
            self._register_status(status_tool, status_description)

    @property
    def specs(self) -> Mapping[str, ToolSpec]:
        """The registered pipeline tools by name, in registration order."""
        return MappingProxyType(self._specs)

    # -- reaching the state from server code -------------------------------------------

    @property
    def store(self) -> StateStore[S]:
        """The in-memory store (only with the default source)."""
        if self.memory is None:
            raise RuntimeError("this pipeline keeps its state in its own source, not in memory")
        return self.memory.store

    def key_for(self, ctx: Context) -> str:
        """The in-memory store key of the client behind `ctx`; raises ToolError if there is none."""
        return client_key(ctx, header=self.client_key_header)

    def state_for(self, ctx: Context) -> S:
        """The calling client's state, created if needed. Takes no lock: use it inside a
        pipeline tool (which already holds the client's lock) or for reads."""
        return self.store.bucket(self.key_for(ctx)).state

    def locked(self, ctx: Context) -> AbstractAsyncContextManager[S]:
        """`async with pipeline.locked(ctx) as state:` — exclusive access, as tools get."""
        return self.store.hold(self.key_for(ctx))

    def reset(self, ctx: Context) -> bool:
        """Forget the calling client's state; True if there was any."""
        return self.store.drop(self.key_for(ctx))

    def describe(self, state: S) -> dict[str, Any]:
        """The status report for `state` (what the status tool returns, minus extras)."""
        return describe(state, list(self._specs.values()))

    async def report(self, ctx: Context) -> dict[str, Any]:
        """The status report of the caller's state, from the source (never creates one)."""
        counts = await self.source.counts(self.source.caller(ctx))
        if counts is None:
            return self.describe(self.state_type())
        return describe_counts(counts, list(self._specs.values()))

    # -- registering tools --------------------------------------------------------------

    @overload
    def tool(self, fn: F, /) -> F: ...

    @overload
    def tool(
        self,
        fn: None = None,
        /,
        *,
        stores: str | Sequence[str] = (),
        requires: str | Sequence[str] = (),
        **options: Unpack[ToolOptions],
    ) -> Callable[[F], F]: ...

    def tool(
        self,
        fn: F | None = None,
        /,
        *,
        stores: str | Sequence[str] = (),
        requires: str | Sequence[str] = (),
        **options: Unpack[ToolOptions],
    ) -> F | Callable[[F], F]:
        """Register a tool that reads or writes the client's state.

        `requires`: fields that must be populated before the tool runs; otherwise the
        call fails with a ToolError naming them and the tools that store them.
        `stores`: fields set from the tool's outcome after it returns (a `Stored`'s
        `store` mapping, or the plain return value when exactly one field is declared).
        A parameter annotated with the state class receives the state and is hidden from
        the input schema. A function with none of the three is registered as a plain
        tool. Other keyword arguments go to `FastMCP.tool`. Returns `fn` unchanged.
        """

        def register(func: F) -> F:
            self._register(func, _names(stores), _names(requires), options)
            return func

        return register if fn is None else register(fn)

    def _register(
        self,
        func: Callable[..., Any],
        stores: tuple[str, ...],
        requires: tuple[str, ...],
        options: ToolOptions,
    ) -> None:
        fields = self.state_type.model_fields
        unknown = [name for name in (*stores, *requires) if name not in fields]
        if unknown:
            raise ValueError(
                f"{func.__qualname__}: {unknown} are not fields of {self.state_type.__name__} "
                f"(fields: {list(self.state_type.field_names())})"
            )
        hints = type_hints(func)
        state_param = find_state_parameter(func, hints, self.state_type)
        if not stores and not requires and state_param is None:
            add_tool(self.server, func, **options)  # needs no state: leave it untouched
            return
        spec = ToolSpec(options.get("name") or func.__name__, stores, requires)

        async def body(kwargs: dict[str, Any], caller: Any) -> Any:
            async with self.source.hold(caller, spec, kwargs) as state:
                missing = state.missing(spec.requires)
                if missing:
                    specs = list(self._specs.values())
                    raise NeedsPreviousStep(missing_message(spec.name, missing, specs))
                if state_param is not None:
                    kwargs[state_param] = state
                outcome = await call_user_function(func, kwargs)
                return apply_outcome(spec, state, outcome)

        wrapper = registrable(
            func,
            hints=hints,
            state_param=state_param,
            hidden_default=Depends(self._caller),
            body=body,
        )
        add_tool(self.server, wrapper, **options)
        self._specs[spec.name] = spec

    def _caller(self, ctx: Context = _CURRENT_CONTEXT) -> Any:
        return self.source.caller(ctx)

    def _register_status(self, name: str, description: str) -> None:
        async def status(ctx: Context = _CURRENT_CONTEXT) -> dict[str, Any]:
            report = await self.report(ctx)
            await merge_extra(report, self._status_extra, ctx)
            return report

        self.server.tool(
            status,
            name=name,
            description=description,
            annotations=ToolAnnotations(
                read_only_hint=True, idempotent_hint=True, open_world_hint=False
            ),
        )
