"""What each pipeline tool stores and requires, and what that means for a given state."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fastmcp.exceptions import ToolError

from gwanjong_shared.pipeline.state import PipelineState, field_count


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A registered pipeline tool: its public name and the fields it writes and needs."""

    name: str
    stores: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()


def _code(names: Iterable[str]) -> list[str]:
    return [f"`{name}`" for name in names]


def _join(items: Sequence[str], word: str) -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {word} {items[-1]}"


def producers(specs: Iterable[ToolSpec], field: str) -> list[str]:
    """The tools that store `field`, in registration order."""
    return [spec.name for spec in specs if field in spec.stores]


def call_first(specs: Sequence[ToolSpec], missing: Iterable[str]) -> list[str]:
    """The tools to run so the `missing` fields get produced, without repeats."""
    order: list[str] = []
    for field in missing:
        for name in producers(specs, field):
            if name not in order:
                order.append(name)
    return order


class NeedsPreviousStep(ToolError):
    """A tool called before the step that feeds it: an order hint, not an outage. `kind`
    is the error kind a server's error middleware reports it as (data, not text)."""

    kind = "needs_previous_step"


def missing_message(tool: str, missing: Sequence[str], specs: Sequence[ToolSpec]) -> str:
    """The error the model sees when it calls `tool` too early; it names the way out.

    Example: "`draft` needs `opportunities`, which is empty. Call `scout` first."
    """
    verb = "is" if len(missing) == 1 else "are"
    sentences = [f"`{tool}` needs {_join(_code(missing), 'and')}, which {verb} empty."]
    steps: list[str] = []
    orphans: list[str] = []
    for field in missing:
        makers = producers(specs, field)
        step = _join(_code(makers), "or")
        if not makers:
            orphans.append(field)
        elif step not in steps:
            steps.append(step)
    if steps:
        sentences.append(f"Call {', then '.join(steps)} first.")
    if orphans:
        sentences.append(f"No tool on this server stores {_join(_code(orphans), 'or')}.")
    return " ".join(sentences)


def describe(state: PipelineState, specs: Sequence[ToolSpec]) -> dict[str, Any]:
    """A JSON-ready report: each field's fill level, and which tools can run now.

    Shape: `{"state": {field: {"populated": bool, "count": int}},
    "tools": {"available": [name], "blocked": [{"tool", "waiting_for", "call_first"}]}}`.
    """
    return describe_counts(
        {name: field_count(getattr(state, name)) for name in state.field_names()}, specs
    )


def describe_counts(counts: Mapping[str, int], specs: Sequence[ToolSpec]) -> dict[str, Any]:
    """`describe` from each field's item count (a source that keeps its state elsewhere
    reports counts, not the state itself)."""
    fields = {name: {"populated": n > 0, "count": n} for name, n in counts.items()}
    available: list[str] = []
    blocked: list[dict[str, Any]] = []
    for spec in specs:
        waiting = [name for name in spec.requires if counts.get(name, 0) <= 0]
        if waiting:
            first = call_first(specs, waiting)
            blocked.append({"tool": spec.name, "waiting_for": waiting, "call_first": first})
        else:
            available.append(spec.name)
    return {"state": fields, "tools": {"available": available, "blocked": blocked}}
