"""Tool results on the wire: the base of every result model, and each tool's output schema.

A field declared with `optional()` is left out when None (absent means "does not apply")
and is neither required nor null in the schema; every other field is always sent and
required. Every output schema also admits the kit's error shape (docs/develop/results.md).
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
