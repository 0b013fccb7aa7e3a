"""Tool results on the wire: the base of every result model, and the output schema each
tool declares.

Two kinds of field, so nothing vanishes by accident: a field declared with `optional()`
is left out of the result when it is None (absent means "does not apply", e.g. no
`retry_after`); every other field is always sent, an empty string as "" and a nullable
one as null (e.g. `would.target` of a new post). The schema says the same: `optional()`
fields are not required and never null, all others are required.

A failed call keeps the kit's error shape (`{"error": {kind, message, retry_after}}`,
see `gwanjong_shared.kit.mcp_errors`), so every output schema admits it beside the
tool's own result: `output_schema` (from `gwanjong_shared.contract.schemas`, shared with the
platform servers; docs/develop/results.md says why).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from gwanjong_shared.contract.schemas import output_schema

__all__ = ["Result", "optional", "output_schema"]


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
