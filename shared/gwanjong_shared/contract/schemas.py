"""The output schema a tool declares: its result, or the error shape of a failed call.

A failed call carries its error as data in the same field as a success
(``structuredContent: {"error": {kind, message, retry_after}}``, see `mcp_errors`), so a
program reads both from one place. The MCP spec says structured content MUST conform to
the tool's output schema, and strict hosts check it on error results too (the TS SDK
1.32 answers -32602, Inspector 2.12 exits 1), so the schema admits the error: a root
`type: object` whose `anyOf` is the result's branches plus `ErrorResult`. The gateway's
tools and every platform server's tools declare their schemas this way
(docs/develop/external-clients.md says why this rather than an error with no structured
content).
"""

from __future__ import annotations

import functools
from typing import Any, cast

from pydantic import TypeAdapter

from gwanjong_shared.contract.errors import ErrorKind, ErrorResult
from gwanjong_shared.json_copy import json_copy

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
    process (each build of a server asks again); each caller gets its own copy."""
    return json_copy(_output_schema(result))


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


def error_schema() -> dict[str, Any]:
    """The schema of a failed call's structured content alone (`{"error": {...}}`)."""
    return json_copy(_error_schema())


@functools.cache
def _error_schema() -> dict[str, Any]:
    from fastmcp.utilities.json_schema import dereference_refs

    return _prune(dereference_refs(ErrorResult.model_json_schema(mode="serialization")))


_SAMPLE_ERROR = {"error": {"kind": ErrorKind.UNAVAILABLE.value, "message": "down"}}


def admit_errors(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (another server's, e.g. a platform tool the gateway passes through), made
    to admit the error shape if it does not already: the gateway answers a failed call
    with that shape whatever the platform server declares."""
    from fastmcp.utilities.json_schema import dereference_refs
    from jsonschema.validators import Draft202012Validator

    validator: Any = Draft202012Validator(schema)  # its stubs leave an overload untyped
    if validator.is_valid(_SAMPLE_ERROR):  # it admits the error already
        return schema
    inlined = dereference_refs(schema)  # `$ref`s are root-relative: they cannot move down
    return {"type": "object", "anyOf": [inlined, error_schema()]}
