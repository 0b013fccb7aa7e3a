"""Is a tool's input schema usable as an OpenAI strict function schema?

Hosts (openai-agents' `ensure_strict_json_schema`, LangChain's OpenAI binding, both
adapted from openai-python's `to_strict_json_schema`) convert an MCP input schema before
sending it with `strict: true`: every object gets `additionalProperties: false` when it
has none, and `required` becomes all of its properties (an optional argument is then
sent explicitly, with its default or null). What no conversion can fix makes the host
fall back to a non-strict tool: an open map (`additionalProperties` true or a schema,
`propertyNames`, `patternProperties`), an object without `properties`, and the keywords
strict mode does not accept. `strict_problems` converts a copy the way those hosts do,
then checks OpenAI's rules on every node; an empty list means the tool can be strict.
"""

from __future__ import annotations

import copy
from typing import Any

# Object and composition keywords OpenAI's strict mode refuses (it accepts type,
# properties, required, additionalProperties: false, items, enum, const, anyOf, $ref,
# $defs, description and the simple numeric, string and array bounds).
UNSUPPORTED = frozenset(
    {
        "propertyNames",
        "patternProperties",
        "unevaluatedProperties",
        "dependentSchemas",
        "dependentRequired",
        "minProperties",
        "maxProperties",
        "if",
        "then",
        "else",
        "not",
        "allOf",
        "oneOf",
        "additionalItems",
        "unevaluatedItems",
        "contains",
    }
)
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions")


def convert(schema: dict[str, Any]) -> dict[str, Any]:
    """What the hosts send: a copy with `additionalProperties: false` added where an
    object has none, and `required` = every property (they raise on an open map, which
    `strict_problems` reports instead)."""
    out = copy.deepcopy(schema)
    _convert(out)
    return out


def _convert(node: Any) -> None:
    if not isinstance(node, dict):
        return
    if node.get("type") == "object" and "additionalProperties" not in node:
        node["additionalProperties"] = False
    if isinstance(node.get("properties"), dict):
        node["required"] = list(node["properties"])
    if node.get("default", 0) is None:
        node.pop("default")  # a None default: the nullable type says it already
    for _, child in _children(node):
        _convert(child)


def _children(node: dict[str, Any], where: str = "$") -> list[tuple[str, Any]]:
    """Each subschema of ``node`` with its place in the schema."""
    out: list[tuple[str, Any]] = []
    for key in _SUBSCHEMA_MAPS:
        if isinstance(node.get(key), dict):
            out += [(f"{where}.{key}.{name}", child) for name, child in node[key].items()]
    for key in _SUBSCHEMA_LISTS:
        if isinstance(node.get(key), list):
            out += [(f"{where}.{key}[{i}]", child) for i, child in enumerate(node[key])]
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            out.append((f"{where}.{key}", node[key]))
    return out


def strict_problems(schema: dict[str, Any]) -> list[str]:
    """Why ``schema`` cannot be an OpenAI strict schema, one line per problem (with its
    place in the schema); empty if it can."""
    problems: list[str] = []
    _check(convert(schema), "$", problems)
    if schema.get("type") != "object":
        problems.append("$: the root must be an object")
    return problems


def _check(node: Any, where: str, problems: list[str]) -> None:
    if not isinstance(node, dict):
        problems.append(f"{where}: not a schema")
        return
    for key in sorted(UNSUPPORTED & node.keys()):
        problems.append(f"{where}: {key} is not accepted in strict mode")
    types = node.get("type")
    is_object = types == "object" or (isinstance(types, list) and "object" in types)
    if is_object or "properties" in node:
        extra = node.get("additionalProperties")
        if extra is not False:
            problems.append(f"{where}: an open map (additionalProperties {extra!r})")
        if not isinstance(node.get("properties"), dict):
            problems.append(f"{where}: an object without properties")
    for place, child in _children(node, where):
        _check(child, place, problems)
