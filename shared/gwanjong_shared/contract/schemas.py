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
from typing import Any

from pydantic import TypeAdapter

from gwanjong_shared.contract.errors import ErrorKind
from gwanjong_shared.json_copy import json_copy


def _branches(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The object schemas a (possibly discriminated) union's JSON schema stands for."""
    defs: dict[str, Any] = schema.get("$defs", {})
    found: list[dict[str, Any]] = []
    for branch in schema.get("anyOf", [schema]):
        for variant in branch.get("oneOf", [branch]):  # a discriminated union, one level
            found.append(defs.get(variant.get("$ref", "").rpartition("/")[2], variant))
    return found


def output_schema(result: Any) -> dict[str, Any]:
    """The output schema of a tool answering `result` (a model or a union of models): an
    object that is one of its results or the error shape of a failed call. Built once per
    process (each build of a server asks again); each caller gets its own copy."""
    return json_copy(_output_schema(result))


@functools.cache
def _output_schema(result: Any) -> dict[str, Any]:
    """What a strict client needs and no more (every tool sends its schema on each
    `tools/list`, and some hosts put all of it before the model): the fields the results
    always carry (`required`), the values that tell them apart (a field held by a `const`,
    such as strike's `status`), and the error shape, each once. Field types and nested
    shapes are the result models' (docs/develop/results.md): spelled out per field they
    made the five tools' list three times its size."""
    schema = TypeAdapter(result).json_schema(mode="serialization")
    tags: dict[str, list[Any]] = {}  # a field each result holds to its own value
    sets: list[list[str]] = []
    for branch in _branches(schema):
        for name, field in branch.get("properties", {}).items():
            if "const" in field:
                tags.setdefault(name, []).append(field["const"])
        sets.append(branch.get("required", []))
    least: list[list[str]] = []  # a result requiring all another requires adds nothing
    for names in sorted(sets, key=len):
        if not any(set(kept) <= set(names) for kept in least):
            least.append(names)
    properties: dict[str, Any] = {name: {"enum": values} for name, values in tags.items()}
    properties.update(_error_schema()["properties"])
    either = [{"required": names} for names in least] + [{"required": ["error"]}]
    return {"type": "object", "properties": properties, "anyOf": either}


def error_schema() -> dict[str, Any]:
    """The schema of a failed call's structured content alone (`{"error": {...}}`)."""
    return json_copy(_error_schema())


@functools.cache
def _error_schema() -> dict[str, Any]:
    kinds = [kind.value for kind in ErrorKind]
    body = {
        "type": "object",
        "properties": {"kind": {"enum": kinds}},
        "required": ["kind", "message"],
    }
    return {"type": "object", "properties": {"error": body}, "required": ["error"]}


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
