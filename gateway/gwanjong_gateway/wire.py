"""Tool results on the wire: the base of every result model, and the output schema each
tool declares.

Two kinds of field, so nothing vanishes by accident: a field declared with `optional()`
is left out of the result when it is None (absent means "does not apply", e.g. no
`retry_after`); every other field is always sent, an empty string as "" and a nullable
one as null (e.g. `would.target` of a new post). The schema says the same: `optional()`
fields are not required and never null, all others are required.

A failed call keeps the kit's error shape (`{"error": {kind, message, retry_after}}`,
see `gwanjong_shared.kit.mcp_errors`), so every output schema admits it beside the
tool's own result (docs/develop/results.md says why).
"""

from __future__ import annotations

import copy
import functools
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from gwanjong_shared.contract.errors import ErrorResult


def _absent(value: object) -> bool:
    return value is None


def _never_null(schema: dict[str, Any]) -> None:
    """An `optional()` field's schema: what it holds when present (null is never sent)."""
    branches = schema.pop("anyOf", None)
    if branches is not None:
        kept = [b for b in branches if b != {"type": "null"}]
        if len(kept) == 1:
            schema.update(kept[0])
        else:
            schema["anyOf"] = kept
    schema.pop("default", None)


def optional(description: str | None = None) -> Any:
    """A field left out of the result when None."""
    return Field(None, exclude_if=_absent, json_schema_extra=_never_null, description=description)


def _sent_fields_required(schema: dict[str, Any], cls: type[BaseModel]) -> None:
    # Serialization-mode schemas leave fields with a default (e.g. `status`) optional;
    # every field but an `optional()` one is always sent, so it is required.
    sent = [
        name
        for name, field in cls.model_fields.items()
        if field.exclude_if is None and not field.exclude
    ]
    if sent:
        schema["required"] = sent


class Result(BaseModel):
    """A tool result (or a part of one), as the model and programs receive it."""

    model_config = ConfigDict(json_schema_extra=_sent_fields_required)


_NOISE = ("title", "default", "discriminator")
_MAPS = ("properties", "$defs", "patternProperties")


def _prune(node: object) -> Any:
    """Drops what the model needs no tokens for: titles, defaults, discriminator maps, the
    docstrings of models and enums, the type beside a const or an enum; `T or null` becomes
    `[T, "null"]`."""
    if isinstance(node, list):
        return [_prune(item) for item in cast("list[object]", node)]
    if not isinstance(node, dict):
        return node
    schema = cast("dict[str, object]", node)  # a JSON object: its keys are text
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _NOISE or (key == "description" and ("properties" in schema or "enum" in schema)):
            continue
        if key == "type" and ("const" in schema or "enum" in schema):
            continue  # the values say it
        if key in _MAPS and isinstance(value, dict):
            named = cast("dict[str, object]", value)  # a map of schemas by name
            out[key] = {name: _prune(sub) for name, sub in named.items()}
        else:
            out[key] = _prune(value)
    branches: object = out.get("anyOf")
    if isinstance(branches, list):
        pair = cast("list[dict[str, object]]", branches)  # anyOf holds schemas
        if len(pair) == 2 and {"type": "null"} in pair:
            other = pair[0] if pair[1] == {"type": "null"} else pair[1]
            if isinstance(other.get("type"), str) and len(other) == 1:
                del out["anyOf"]
                out["type"] = [other["type"], "null"]
    return out


def output_schema(result: Any) -> dict[str, Any]:
    """The output schema of a tool answering `result` (a model or a union of models): an
    object that is one of its results or the error shape of a failed call. Built once per
    process (each build of the gateway asks again); each caller gets its own copy."""
    return copy.deepcopy(_output_schema(result))


@functools.cache
def _output_schema(result: Any) -> dict[str, Any]:
    either: Any = result | ErrorResult
    schema = TypeAdapter(either).json_schema(mode="serialization")
    branches: list[dict[str, Any]] = []
    for branch in schema.pop("anyOf"):
        # a discriminated union's variants sit beside the error, one level
        branches.extend(branch.get("oneOf", [branch]))
    defs = schema.get("$defs", {})
    for branch in branches:  # the root says object once for all of them
        target = defs.get(branch.get("$ref", "").rpartition("/")[2], branch)
        target.pop("type", None)
    return _prune({"type": "object", "anyOf": branches, **schema})
