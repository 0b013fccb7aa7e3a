"""Each tool's schemas computed once per process.

FastMCP parses a tool function (its input schema, output schema and description) every
time a server registers it, and pydantic builds those schemas anew each time: most of what
building a server costs. A process that builds the same server again (an in-process
platform per gateway, a gateway per test, a server per client in team mode) registers the
same function code with the same options, so the parse of the first is kept and the later
ones only bind their own function to a copy of it.
"""

from __future__ import annotations

import inspect
import marshal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from fastmcp import FastMCP
from fastmcp.server.dependencies import transform_context_annotations
from fastmcp.tools.function_tool import FunctionTool
from fastmcp.utilities.json_schema import dereference_refs
from mcp.types import ToolAnnotations

from gwanjong_shared.json_copy import json_copy

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class _Template:
    tool: FunctionTool
    #: whether parsing gave the function a new signature (Context parameters injected)
    resigned: bool


_TEMPLATES: dict[tuple[Any, ...], _Template] = {}
_PLAIN = (int, float, str, bool, type(None), tuple, frozenset)


def _shape(fn: Callable[..., Any]) -> tuple[Any, ...]:
    """What the schemas are made of: each parameter's name, kind, annotation and default
    (a default that is an object, such as a dependency, by its type: it is not in the
    schema and each server keeps its own)."""
    out: list[Any] = []
    for p in inspect.signature(fn).parameters.values():
        default: object = p.default
        plain = isinstance(default, _PLAIN)
        shown = repr(cast(object, default)) if plain else type(default).__qualname__
        out.append((p.name, p.kind, repr(p.annotation), shown))
    return tuple(out)


def _option(value: object) -> bytes | str:
    # a schema given as an option (output_schema) compared by its content, in C
    if type(value) is not dict:
        return repr(value)  # an option of any other kind, by its text
    schema = cast("dict[str, object]", value)
    try:
        return marshal.dumps(schema)
    except ValueError:  # not plain JSON
        return repr(schema)


def _key(fn: Callable[..., Any], options: dict[str, Any]) -> tuple[Any, ...] | None:
    code = getattr(fn, "__code__", None)
    if code is None or not inspect.isfunction(fn):
        return None  # a callable object or a partial: parsed each time
    named = (fn.__module__, fn.__qualname__, fn.__name__, code)
    chosen = tuple((name, _option(value)) for name, value in sorted(options.items()))
    return (*named, chosen, _shape(fn))


def add_tool(mcp: FastMCP[Any], fn: Callable[..., Any], **options: Any) -> FunctionTool:
    """``mcp.tool(fn, **options)``, parsing ``fn`` only if this code with these options was
    not parsed before in this process."""
    if isinstance(options.get("annotations"), dict):  # as FastMCP.tool accepts them
        options["annotations"] = ToolAnnotations(**options["annotations"])
    key = _key(fn, options)
    known = _TEMPLATES.get(key) if key is not None else None
    if known is None:
        signed = fn.__dict__.get("__signature__")
        tool = _inlined(FunctionTool.from_function(fn, **options))
        if key is not None:
            # from_function gives Context parameters a new signature, on fn itself
            _TEMPLATES[key] = _Template(tool, fn.__dict__.get("__signature__") is not signed)
    else:
        template = known.tool
        # what from_function does to the function itself, if it did anything to the first
        bound = transform_context_annotations(fn) if known.resigned else fn
        # A copy of its own for each server (schemas and meta are dicts a server may
        # change), made without deepcopy's memo: registering was most of a server's build.
        tool = template.model_copy(
            update={
                "fn": bound,
                "parameters": json_copy(template.parameters),
                "output_schema": json_copy(template.output_schema),
                "meta": json_copy(template.meta),
                "tags": set(template.tags),
            }
        )
    mcp.add_tool(tool)
    return tool


def _inlined(tool: FunctionTool) -> FunctionTool:
    """The tool with its schemas' `$ref`s inlined, as FastMCP sends them to clients anyway:
    done once here rather than on every `tools/list`."""
    updates: dict[str, Any] = {}
    if "$defs" in tool.parameters:
        updates["parameters"] = dereference_refs(tool.parameters)
    if tool.output_schema is not None and "$defs" in tool.output_schema:
        updates["output_schema"] = dereference_refs(tool.output_schema)
    return tool.model_copy(update=updates) if updates else tool


def tool(mcp: FastMCP[Any], **options: Any) -> Callable[[F], F]:
    """The decorator form: ``@tool(mcp, description=...)`` as ``@mcp.tool(description=...)``."""

    def register(fn: F) -> F:
        add_tool(mcp, fn, **options)
        return fn

    return register
