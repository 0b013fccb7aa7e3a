"""Tool results on the wire: the base of every result model, and each tool's output schema.

A field declared with `optional()` is left out when None (absent means "does not apply",
never sent as null) and is not required in the schema; every other field is always sent
and required. Every output schema also admits the kit's error shape
(docs/develop/results.md).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer

from gwanjong_shared.contract.schemas import output_schema
from gwanjong_shared.contract.untrusted import clean, one_line

__all__ = ["Link", "Quoted", "Result", "optional", "output_schema"]

#: Text a result quotes from the record that a platform wrote (a reason it gave, a name):
#: sent cleaned, as everything the model reads from a platform is (contract/untrusted.py);
#: kept as it is for a person's surface, which marks it.
Quoted = Annotated[str, PlainSerializer(clean, when_used="json")]
#: A platform's link (a target's, a write's): sent cleaned, on one line.
Link = Annotated[str, PlainSerializer(lambda url: one_line(url, 2048), when_used="json")]


def _absent(value: object) -> bool:
    return value is None


def optional(description: str | None = None) -> Any:
    """A field left out of the result when None."""
    return Field(None, exclude_if=_absent, description=description)


class Result(BaseModel):
    """A tool result (or a part of one), as the model and programs receive it."""

    # A field with a default is always sent too, so the schema requires it (pydantic
    # leaves an `optional()` one out: it is excluded when None).
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)
