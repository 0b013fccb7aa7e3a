"""The return wrapper that lets a tool keep full data on the server but answer briefly."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from gwanjong_shared.pipeline.graph import ToolSpec
from gwanjong_shared.pipeline.state import PipelineState

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Stored(Generic[T]):
    """What a pipeline tool returns when the model should see less than the server keeps.

    `result` goes to the model; each `store` entry is assigned to the state field of that
    name (every key must be declared in the tool's `stores=`). `Stored(result)` with no
    `store` stores nothing, for tools that already wrote to the injected state themselves.
    Annotate the tool as `-> Stored[X]`: the output schema is built from `X`.
    """

    result: T
    store: Mapping[str, Any] = field(default_factory=dict[str, Any])


def apply_outcome(spec: ToolSpec, state: PipelineState, outcome: object) -> object:
    """Write a tool's outcome into `state` as its spec says; return what the model sees.

    A `Stored` sets the fields in its `store`. A plain value is stored whole when the tool
    declares exactly one field; with several declared fields it must be a `Stored`.
    """
    if isinstance(outcome, Stored):
        stored = cast("Stored[object]", outcome)
        undeclared = [name for name in stored.store if name not in spec.stores]
        if undeclared:  # checked before any write, so a bad return changes nothing
            raise TypeError(
                f"tool `{spec.name}` returned Stored(store=...) with {undeclared}, "
                f"but declares stores={list(spec.stores)}"
            )
        for name, value in stored.store.items():
            setattr(state, name, value)
        return stored.result
    if len(spec.stores) == 1:
        setattr(state, spec.stores[0], outcome)
    elif spec.stores:
        raise TypeError(
            f"tool `{spec.name}` declares stores={list(spec.stores)}; return "
            "Stored(result, store={...}) to say which value goes where"
        )
    return outcome
